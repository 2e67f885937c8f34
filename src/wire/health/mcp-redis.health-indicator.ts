import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';

/**
 * A `@nestjs/terminus` health indicator of the module's shared Redis connection (the `redis`
 * option): up when a `PING` answers within the module's command timeout, with its round trip;
 * down when it does not, or when no `redis` option is set (say so in the check you register).
 *
 * @example
 * ```ts
 * ready() {
 *   return this.health.check([() => this.redis.isHealthy('redis')]);
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class McpRedisHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly moduleRef: ModuleRef,
  ) {}

  async isHealthy(key = 'mcp_redis'): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const connection = this.moduleRef.get(McpRedisConnection, { strict: false });
    if (!connection.configured) return indicator.down({ message: 'no redis option is set' });
    const started = performance.now();
    try {
      const answer = await connection.run((client) => client.call('PING'));
      if (answer !== 'PONG') return indicator.down({ message: 'unexpected PING answer' });
    } catch {
      return indicator.down({ message: 'Redis did not answer PING in time' });
    }
    return indicator.up({ pingMs: Math.round((performance.now() - started) * 10) / 10 });
  }
}
