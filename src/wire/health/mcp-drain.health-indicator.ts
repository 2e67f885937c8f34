import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { McpDrain } from '../drain/mcp-drain.service';

/**
 * A `@nestjs/terminus` readiness indicator: up while the instance takes work, down from the moment
 * its shutdown drain begins (the `shutdown` option), so the balancer stops sending it requests
 * while those in flight finish. Put it in the readiness check, never in the liveness one (a
 * draining instance is alive).
 *
 * @example
 * ```ts
 * @Get('ready')
 * @HealthCheck()
 * ready() {
 *   return this.health.check([() => this.drain.isReady('mcp')]);
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class McpDrainHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly moduleRef: ModuleRef,
  ) {}

  isReady(key = 'mcp'): HealthIndicatorResult {
    const indicator = this.indicators.check(key);
    const drain = this.moduleRef.get(McpDrain, { strict: false });
    return drain.draining ? indicator.down({ message: 'draining for shutdown' }) : indicator.up();
  }
}
