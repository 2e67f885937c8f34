import { NestjsMcpError } from '../kit/errors/nestjs-mcp.error';

/**
 * Why a Redis command went unanswered. Reasons hold no key, value or URL. `late`: the command
 * reached Redis after the deadline its script checks, and changed nothing; `failed <Error>`: the
 * command could not even be made (a programming error, not an outage). @internal
 */
export type RedisCommandFailure =
  'unavailable' | 'timeout' | 'late' | `rejected ${string}` | `failed ${string}`;

/**
 * A Redis command the module needed was not answered: the client was disconnected
 * (`unavailable`), the reply did not come within the command timeout (`timeout`), or Redis
 * refused it (`rejected <ERROR CODE>`, e.g. `rejected OOM`). Stores turn it into their own error.
 * `maybeApplied` says whether the command may have reached Redis and been applied though its
 * reply never came (it was sent, then the connection or the clock ran out); an error reply or a
 * command never sent changed nothing.
 * @internal
 */
export class RedisCommandError extends NestjsMcpError {
  constructor(
    readonly reason: RedisCommandFailure,
    readonly maybeApplied = false,
  ) {
    super(`Redis command failed: ${reason}`);
  }
}
