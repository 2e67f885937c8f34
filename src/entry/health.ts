// `nestjs-mcp/health`: `@nestjs/terminus` health indicators for readiness probes (the keyring,
// Redis, and the shutdown drain). Importing this subpath needs the optional peer `@nestjs/terminus`.

export { McpHealthModule } from '../health/mcp-health.module';
export { McpDrainHealthIndicator } from '../health/mcp-drain.health-indicator';
export { McpKeyringHealthIndicator } from '../health/mcp-keyring.health-indicator';
export { McpRedisHealthIndicator } from '../health/mcp-redis.health-indicator';
