import { NestjsMcpError } from '../kit/errors/nestjs-mcp.error';

/** Why a Redis command went unanswered. Reasons hold no key, value or URL. @internal */
export type RedisCommandFailure = 'unavailable' | 'timeout' | `rejected ${string}`;

/**
 * A Redis command the module needed was not answered: the client was disconnected
 * (`unavailable`), the reply did not come within the command timeout (`timeout`), or Redis
 * refused it (`rejected <ERROR CODE>`, e.g. `rejected OOM`). Stores turn it into their own error.
 * @internal
 */
export class RedisCommandError extends NestjsMcpError {
  constructor(readonly reason: RedisCommandFailure) {
    super(`Redis command failed: ${reason}`);
  }
}
