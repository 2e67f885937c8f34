import type { CanActivate, ExecutionContext } from '@nestjs/common';
import { CallerPartitions } from '../auth/identity/caller-partitions';
import { serverBusy } from '../kit/errors/server-busy';
import { andThen } from '../kit/maybe-promise';
import type { McpCoreEvents } from '../options/mcp-core-events';
import { callStartOf } from './call-events';
import { refusal } from './library-interceptor';
import { operationCallOf } from './operation-call';

/** What a call is answered when an observer that must see it start (a strict audit trail) cannot. */
const NOT_RECORDED = 'Server busy: the call could not be recorded before it ran; try again';

/**
 * The last guard of every operation while an observer awaits calls before they run (a `strict`
 * audit trail): after the application's guards (so the caller's partition is what they made it)
 * and before any interceptor, state consumption, pipe or method. When the observer cannot take the
 * call, it is refused with the retryable `-32000` and nothing of it runs — a single-use state is
 * not consumed, so the client's retry of the same round goes through.
 * @internal
 */
export class CallStartedGuard implements CanActivate {
  constructor(
    private readonly events: McpCoreEvents,
    private readonly partitions: CallerPartitions,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    const call = operationCallOf(context.getArgs());
    if (call?.purpose !== 'operation') return true;
    const started = andThen(this.partitions.resolve(call.context, call.detached), (principal) =>
      this.events.starting(callStartOf(call, principal)),
    );
    return Promise.resolve(started).then(
      () => true,
      (error: unknown) => {
        const retryAfterMs = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
        throw refusal(
          call,
          serverBusy(NOT_RECORDED, typeof retryAfterMs === 'number' ? retryAfterMs : undefined),
        );
      },
    );
  }
}
