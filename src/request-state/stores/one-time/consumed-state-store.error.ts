import { NestjsMcpError } from '../../../kit/errors/nestjs-mcp.error';

/**
 * A {@link ConsumedStateStore} could not record a presentation now, or has no room for it. Answered
 * `-32000 Server busy` with `data.retryAfterMs`, nothing consumed, for: `full` (the store) or
 * `share` (its owner holds its share); an outage — `unavailable`, `timeout`, `late` (past the
 * write's deadline), `in doubt` (another presentation's claim is unsettled), `not replicated`, or
 * `rejected <CODE>` for Redis's `OOM`, `READONLY`, `CLUSTERDOWN`, `LOADING`, `MASTERDOWN`,
 * `TRYAGAIN`, `BUSY`, `NOREPLICAS`, `MISCONF`. Any other reason is a fault, answered `-32603`. The
 * reason is logged and must hold no state or secret.
 *
 * @publicApi
 */
export class ConsumedStateStoreError extends NestjsMcpError {
  constructor(
    readonly reason: string,
    /** For `full` and `share`: when trying again may succeed (the first record expires). */
    readonly retryAfterMs?: number,
    /** Whether the store may have recorded the presentation though it could not say so (a lost reply). */
    readonly maybeApplied = false,
  ) {
    super(`Consumed-state store failed: ${reason}`);
  }
}
