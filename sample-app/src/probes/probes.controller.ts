import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthIndicatorFunction } from '@nestjs/terminus';
import {
  McpDrainHealthIndicator,
  McpKeyringHealthIndicator,
  McpRedisHealthIndicator,
} from '../../../src/entry/health';

/**
 * Kubernetes probes, unauthenticated (docs/operations.md, "Kubernetes"): `live` answers 200 while
 * the process serves HTTP at all, the drain's delay included (after it the instance no longer
 * listens); `ready` answers 503 from the moment the shutdown drain begins, and while the keyring
 * (or, with `MCP_STORE=redis`, Redis) is not ready to serve flows.
 */
@Controller('health')
export class ProbesController {
  private readonly readiness: HealthIndicatorFunction[];

  constructor(
    private readonly health: HealthCheckService,
    drain: McpDrainHealthIndicator,
    keyring: McpKeyringHealthIndicator,
    redis: McpRedisHealthIndicator,
  ) {
    this.readiness = [
      () => drain.isReady('mcp'),
      // Without MCP_KEYRING the sample runs on an ephemeral key, on purpose (one instance).
      () => keyring.isHealthy('keyring', { allowEphemeralKey: !process.env.MCP_KEYRING }),
      ...(process.env.MCP_STORE === 'redis' ? [() => redis.isHealthy('redis')] : []),
    ];
  }

  /** Not a Terminus check: Terminus answers every check 503 once shutdown begins, and a draining instance is alive. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check(this.readiness);
  }
}
