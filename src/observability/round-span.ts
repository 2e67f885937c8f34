import { MCP_SEMCONV, OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import type { ObservedRound } from './observed-call';

/** The part of an OpenTelemetry `Span` a round's end uses. @internal */
export interface RoundSpan {
  setAttribute(name: string, value: string | number): unknown;
  setStatus(status: { code: number }): unknown;
  end(): void;
}

/**
 * Ends the span of one round of an operation with what the round came to: its flow, round number
 * and outcome, the reason a state was refused, the error it was answered with.
 * @internal
 */
export function endRoundSpan(
  api: { readonly SpanStatusCode: { readonly ERROR: number } },
  span: RoundSpan,
  round: ObservedRound,
): void {
  span.setAttribute(OWN_ATTRIBUTES.flowId, round.flowId);
  span.setAttribute(OWN_ATTRIBUTES.round, round.round);
  span.setAttribute(OWN_ATTRIBUTES.outcome, round.outcome);
  if (round.rejection) {
    span.setAttribute(OWN_ATTRIBUTES.rejectionReason, round.rejection.reason);
    if (round.rejection.detail !== undefined)
      span.setAttribute(OWN_ATTRIBUTES.rejectionField, round.rejection.detail);
  }
  if (round.errorType !== undefined) {
    span.setAttribute(MCP_SEMCONV.errorType, round.errorType);
    if (round.errorType !== 'tool_error')
      span.setAttribute(MCP_SEMCONV.responseStatusCode, round.errorType);
    span.setStatus({ code: api.SpanStatusCode.ERROR });
  }
  span.end();
}
