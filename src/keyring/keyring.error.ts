import { NestjsMcpError } from '../kit/errors/nestjs-mcp.error';

/**
 * A keyring operation was refused (bad key id or material, unknown key, conflicting bytes,
 * removing the active key), or could not be done now: with `retryAfterMs`, the fleet's keyring
 * in Redis could not be reached (an outage), and the same call may be made again after that
 * long. The message names the key id, never its bytes.
 *
 * @publicApi
 */
export class KeyringError extends NestjsMcpError {
  constructor(
    message: string,
    /** Set when the refusal is an outage of the fleet's Redis: when to try again, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
