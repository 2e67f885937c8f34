import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { recordRateLimitFacts } from '../../kit/errors/rate-limit-facts';
import { ANONYMOUS_PARTITION } from '../../auth/identity/authorization-partition.resolver';
import { CallerPartitions } from '../../auth/identity/caller-partitions';
import { operationCallOf } from '../../pipeline/operation-call';

/**
 * `@nestjs/throttler`'s guard for MCP: an MCP call is counted against the caller's authorization
 * partition (the one its sealed state is bound to: the user, or the OAuth client and subject),
 * per operation (the throttler keys by class and method), and an anonymous caller against its IP
 * address, so one anonymous client cannot spend everybody's budget. Lists, task look-ups and
 * completions are not counted (they run the guards only to decide what a caller may see or
 * whose a task is). Over the limit the call answers HTTP 429 with `Retry-After` and the JSON-RPC
 * error -32029 whose `data.retryAfterMs` says how long to wait — or, with the module's
 * `rateLimits: { errors: 'sep-3304' }`, the draft's -32023 with the limit and what remains of it
 * (`data.limit`, `data.remaining`, `RateLimit-Limit`, `RateLimit-Remaining`). Anything that is not
 * an MCP call is throttled as `ThrottlerGuard` does it.
 *
 * @example
 * ```ts
 * ThrottlerModule.forRoot([{ ttl: 60_000, limit: 30 }]),
 * { provide: APP_GUARD, useClass: McpThrottlerGuard },
 * ```
 * @publicApi
 */
@Injectable()
export class McpThrottlerGuard extends ThrottlerGuard {
  /** Made by the module (inject it): its dependencies are the module's own. @internal */
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly partitions: CallerPartitions,
  ) {
    super(options, storage, reflector);
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const call = operationCallOf(context.getArgs());
    if (call && call.purpose !== 'operation') return true;
    return super.shouldSkip(context);
  }

  /** Refuses as `ThrottlerGuard` does, noting the limit for the draft's error (`rateLimits.errors`). */
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    try {
      await super.throwThrottlingException(context, detail);
    } catch (exception) {
      if (exception !== null && typeof exception === 'object')
        recordRateLimitFacts(exception, {
          limit: detail.limit,
          remaining: Math.max(0, detail.limit - detail.totalHits),
        });
      throw exception;
    }
  }

  protected override async getTracker(
    req: Record<string, unknown>,
    context?: ExecutionContext,
  ): Promise<string> {
    const call = context && operationCallOf(context.getArgs());
    if (!call) return super.getTracker(req);
    const partition = await this.partitions.resolve(call.context, call.detached);
    return partition === ANONYMOUS_PARTITION
      ? `mcp:anonymous:${await super.getTracker(req)}`
      : `mcp:${partition}`;
  }
}
