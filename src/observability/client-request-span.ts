import { MCP_SEMCONV, OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import type { ClientRequestObservation } from './observations';
import type { ObservedClientRequest } from './observed-request';
import type { RoundSpan } from './round-span';
import type { AttributeMap } from './span-attributes';

/** The attributes of a CLIENT span for a request a 2025-era call sends its client. @internal */
export function clientRequestAttributes(request: ObservedClientRequest): AttributeMap {
  const attributes: AttributeMap = { [MCP_SEMCONV.methodName]: request.method };
  if (request.sessionId !== undefined) attributes[MCP_SEMCONV.sessionId] = request.sessionId;
  if (request.protocolVersion !== undefined)
    attributes[MCP_SEMCONV.protocolVersion] = request.protocolVersion;
  return attributes;
}

/** Ends `span` with how the client answered (`errorCode`: the API's `SpanStatusCode.ERROR`). @internal */
export function clientRequestEnd(span: RoundSpan, errorCode: number): ClientRequestObservation {
  return {
    end: (outcome, errorType) => {
      span.setAttribute(OWN_ATTRIBUTES.inputOutcome, outcome);
      if (errorType !== undefined) span.setAttribute(MCP_SEMCONV.errorType, errorType);
      if (outcome === 'error' || outcome === 'timed_out' || outcome === 'refused')
        span.setStatus({ code: errorCode });
      span.end();
    },
  };
}
