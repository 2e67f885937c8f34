import { NestjsMcpError } from '../../kit/errors/nestjs-mcp.error';

/**
 * What a token-resident key's `decrypt` throws when the token says the tag does not verify (the
 * state was not sealed under this key, or was altered): the protector answers it as a state that
 * fails authentication, unlike a token that cannot be reached.
 * @internal
 */
export class ResidentKeyRejectedError extends NestjsMcpError {
  constructor() {
    super('The token rejected the sealed data (its tag does not verify)');
  }
}
