import { NestjsMcpError } from '../../../kit/errors/nestjs-mcp.error';

/**
 * A {@link StateHandleRepository} could not answer now or has no room for a new flow. Answered
 * `-32000 Server busy` with `data.retryAfterMs` for: `full` (the repository) or `share` (the
 * caller holds its share); an outage — `unavailable`, `timeout`, `late` (past the write's
 * deadline), or `rejected <CODE>` for Redis's `OOM`, `READONLY`, `CLUSTERDOWN`, `LOADING`,
 * `MASTERDOWN`, `TRYAGAIN`, `BUSY`, `NOREPLICAS`, `MISCONF`. Any other reason is a fault, answered
 * `-32603`. The reason is logged and must hold no handle, data or secret.
 *
 * @publicApi
 */
export class StateHandleRepositoryError extends NestjsMcpError {
  constructor(
    readonly reason: string,
    /** For `full` and `share`: when trying again may succeed (the first record expires). */
    readonly retryAfterMs?: number,
  ) {
    super(`State handle repository failed: ${reason}`);
  }
}
