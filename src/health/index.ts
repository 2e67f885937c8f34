// `nestjs-mcp/health`: `@nestjs/terminus` health indicators for readiness probes. Importing this
// subpath needs the optional peer `@nestjs/terminus`.

export { McpHealthModule } from './mcp-health.module';
export {
  McpKeyringHealthIndicator,
  type McpKeyringHealthOptions,
} from './mcp-keyring.health-indicator';
export { McpRedisHealthIndicator } from './mcp-redis.health-indicator';
