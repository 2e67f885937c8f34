// `nestjs-mcp/health`: `@nestjs/terminus` health indicators for readiness probes (the keyring,
// Redis, and the shutdown drain). Importing this subpath needs the optional peer `@nestjs/terminus`.

export { McpHealthModule } from '../wire/health/mcp-health.module';
export { McpDrainHealthIndicator } from '../wire/health/mcp-drain.health-indicator';
export { McpKeyringHealthIndicator } from '../wire/health/mcp-keyring.health-indicator';
export { McpRedisHealthIndicator } from '../wire/health/mcp-redis.health-indicator';
