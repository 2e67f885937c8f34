// `nestjs-mcp/throttler`: rate limits per MCP caller with `@nestjs/throttler` (an optional peer).
export { McpThrottlerGuard } from '../operations/throttler/mcp-throttler.guard';
