import { NestjsMcpError } from '../../kit/errors/nestjs-mcp.error';
import type { RequestStateBindingField } from './request-state-binding';
import type { SealedFlow } from './sealed-flow';

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
  | 'protector_failure'
  | 'key_unavailable'
  | 'binding_mismatch';

/**
 * What narrows a reason down, safe to log: the binding field that differs (`binding_mismatch`),
 * `earlier_format` (a `malformed` state sealed by an earlier build) or `issued_in_future`.
 * @publicApi
 */
export type RequestStateFailureDetail =
  RequestStateBindingField | 'earlier_format' | 'issued_in_future';

/**
 * A request state was rejected or could not be produced. The reason is one of a fixed set;
 * the message never contains key material or the state itself.
 *
 * @publicApi
 */
export class RequestStateProtectionError extends NestjsMcpError {
  /**
   * The flow of a state that was authentic but refused (expired, bound elsewhere, replayed).
   * @internal
   */
  readonly flow?: SealedFlow;

  constructor(reason: RequestStateFailureReason, detail?: RequestStateFailureDetail);
  /** With the flow of a state that was authentic but refused. @internal */
  constructor(
    reason: RequestStateFailureReason,
    detail: RequestStateFailureDetail | undefined,
    flow: SealedFlow | undefined,
  );
  constructor(
    readonly reason: RequestStateFailureReason,
    readonly detail?: RequestStateFailureDetail,
    flow?: SealedFlow,
  ) {
    super(`Request state rejected: ${reason}${detail === undefined ? '' : ` (${detail})`}`);
    this.flow = flow;
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
