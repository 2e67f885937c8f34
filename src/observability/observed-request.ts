import type { IncomingHttpHeaders } from 'node:http';

/** What the span of one request that runs no operation is made from (made only when observed). @internal */
export interface ObservedRequest {
  readonly method: string;
  readonly requestId: string | number | undefined;
  readonly protocolVersion: string | undefined;
  /** The 2025-era session the request belongs to; never set on a 2026-07-28 request. */
  readonly sessionId: string | undefined;
  /** The request's `params._meta`, for the trace context a client sent there. */
  readonly meta: unknown;
  readonly headers: IncomingHttpHeaders;
  readonly clientAddress: string | undefined;
}

/** A server-to-client request a 2025-era call sends between its rounds. @internal */
export interface ObservedClientRequest {
  /** `elicitation/create`, `sampling/createMessage`, `roots/list`. */
  readonly method: string;
  readonly sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
  /** The span context (`traceparent` spelling) of the round that asked. */
  readonly parent: string | undefined;
}

/**
 * How a server-to-client request ended, as its span says: the user's action for an elicitation
 * (`accepted`, `declined`, `cancelled`), `answered` for any other result, or why there was no
 * answer. Never the answer's content.
 * @internal
 */
export type ClientRequestOutcome =
  | 'accepted'
  | 'declined'
  | 'cancelled'
  | 'answered'
  | 'error'
  | 'timed_out'
  | 'aborted'
  | 'refused';

/** How a request its server answered itself ended, for its span. @internal */
export interface RequestEnd {
  /** The JSON-RPC code of the error it was answered with. */
  readonly errorType?: string;
  /** The 2025-era session it opened (an `initialize`). */
  readonly sessionId?: string;
}
