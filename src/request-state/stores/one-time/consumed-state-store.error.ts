import { NestjsMcpError } from '../../../kit/errors/nestjs-mcp.error';

/**
 * A {@link ConsumedStateStore} could not record a presentation (e.g. `unavailable`, `timeout`), or
 * has no room for it: `full` (the store) or `share` (its owner holds its share). No room is
 * answered `-32000 Server busy` with `data.retryAfterMs`; anything else `-32603`. The reason is
 * logged and must hold no state or secret.
 *
 * @publicApi
 */
export class ConsumedStateStoreError extends NestjsMcpError {
  constructor(
    readonly reason: string,
    /** For `full` and `share`: when trying again may succeed (the first record expires). */
    readonly retryAfterMs?: number,
  ) {
    super(`Consumed-state store failed: ${reason}`);
  }
}
