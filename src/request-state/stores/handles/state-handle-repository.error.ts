import { NestjsMcpError } from '../../../kit/errors/nestjs-mcp.error';

/**
 * A {@link StateHandleRepository} could not answer (e.g. `unavailable`, `timeout`) or has no room
 * for a new flow: `full` (the repository) or `share` (the caller holds its share). No room is
 * answered `-32000 Server busy` with `data.retryAfterMs`; anything else fails with `-32603`. The
 * reason is logged and must hold no handle, data or secret.
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
