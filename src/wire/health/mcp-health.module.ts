import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { McpDrainHealthIndicator } from './mcp-drain.health-indicator';
import { McpKeyringHealthIndicator } from './mcp-keyring.health-indicator';
import { McpRedisHealthIndicator } from './mcp-redis.health-indicator';

/**
 * The module's `@nestjs/terminus` health indicators: import it beside `McpModule` (it needs
 * `@nestjs/terminus` installed) and inject them into your health controller.
 * @publicApi
 */
@Module({
  imports: [TerminusModule],
  providers: [McpKeyringHealthIndicator, McpRedisHealthIndicator, McpDrainHealthIndicator],
  exports: [
    McpKeyringHealthIndicator,
    McpRedisHealthIndicator,
    McpDrainHealthIndicator,
    TerminusModule,
  ],
})
export class McpHealthModule {}
