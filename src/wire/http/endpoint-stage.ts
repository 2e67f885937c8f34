import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import type { MaybePromise } from '../../kit/maybe-promise';
import type { HttpExchange } from '../../pipeline/http-exchange';
import type { CheckedMessage } from './checked-message';

/**
 * One request at the endpoint, as its stages hand it on: what the client sent, and what each stage
 * found (the body once admitted, the message once checked).
 * @internal
 */
export interface EndpointRequest {
  readonly request: McpHttpRequest;
  readonly raw: IncomingMessage;
  readonly response: ServerResponse;
  /** The body, once admitted; `undefined` for a request without one. */
  text?: string;
  /** The message and what the checks made of it, once they passed. */
  checked?: CheckedMessage;
}

/**
 * A stage of the endpoint: it takes the request (answers it, or hands it to what serves it: `true`)
 * or passes it on to the next stage (`false`). Synchronous when it passes a request on without
 * waiting, so the stages a plain call crosses cost no promise each.
 * @internal
 */
export interface EndpointStage {
  take(request: EndpointRequest): MaybePromise<boolean>;
}

/** Injection token of the endpoint's stages, in the order they run (`endpoint-stages.provider.ts`). @internal */
export const ENDPOINT_STAGES = Symbol('EndpointStages');

/** The exchange a checked request is served on. @internal */
export function exchangeOf(request: EndpointRequest): HttpExchange {
  return {
    request: request.request,
    raw: request.raw,
    response: request.response,
    ...(request.checked as CheckedMessage),
  };
}

/** `true` once `served` settles: a stage that took the request. @internal */
export function taken(served: Promise<unknown>): Promise<boolean> {
  return served.then(() => true);
}
