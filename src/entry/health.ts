// `nestjs-mcp/health`: `@nestjs/terminus` health indicators for readiness probes. Importing this
// subpath needs the optional peer `@nestjs/terminus`.

export { McpHealthModule } from '../health/mcp-health.module';
export {
  McpKeyringHealthIndicator,
  type McpKeyringHealthOptions,
} from '../health/mcp-keyring.health-indicator';
export { McpRedisHealthIndicator } from '../health/mcp-redis.health-indicator';
