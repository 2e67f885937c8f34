import { NestjsMcpError } from '../errors/nestjs-mcp.error';

/** Why a request state could not be sealed or opened. Safe to log; never sent to clients. @publicApi */
export type RequestStateFailureReason =
  | 'malformed'
  | 'unknown_key'
  | 'authentication_failed'
  | 'too_large'
  | 'expired'
  | 'too_many_rounds'
  | 'replayed_request_id'
  | 'replayed'
  | 'wrong_mode'
  | 'protector_failure';

/**
 * A request state was rejected or could not be produced. The reason is one of a fixed set;
 * the message never contains key material or the state itself.
 *
 * @publicApi
 */
export class RequestStateProtectionError extends NestjsMcpError {
  constructor(readonly reason: RequestStateFailureReason) {
    super(`Request state rejected: ${reason}`);
  }
}

/**
 * A protector's failure as a {@link RequestStateProtectionError}: its own reason, or
 * `protector_failure` for anything else it threw. @internal
 */
export function asRequestStateProtectionError(error: unknown): RequestStateProtectionError {
  return error instanceof RequestStateProtectionError
    ? error
    : new RequestStateProtectionError('protector_failure');
}
