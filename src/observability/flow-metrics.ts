import type { Instruments } from './mcp-instruments';
import { MCP_SEMCONV, OWN_ATTRIBUTES } from './mcp-semantic-conventions';
import type { ObservedCall, ObservedRound } from './observed-call';
import { targetAttributes, type AttributeMap } from './span-attributes';

/** A round 1 that asked for input began a multi-round flow. @internal */
export function flowStarted(round: ObservedRound): boolean {
  return round.round === 1 && round.outcome === 'input_required';
}

/** A later round that finished. @internal */
export function flowEnded(round: ObservedRound): boolean {
  return (
    round.round > 1 &&
    (round.outcome === 'complete' || round.outcome === 'declined' || round.outcome === 'cancelled')
  );
}

/**
 * Records one round of an operation: its duration, and what it did to its flow (started, rejected
 * by reason, expired, ended with its rounds and outcome). @internal
 */
export function countRound(
  instruments: Instruments,
  call: ObservedCall,
  round: ObservedRound,
  seconds: number,
): void {
  const attributes: AttributeMap = {
    [MCP_SEMCONV.methodName]: call.method,
    ...targetAttributes(call),
  };
  if (call.protocolVersion !== undefined)
    attributes[MCP_SEMCONV.protocolVersion] = call.protocolVersion;
  const durationAttributes =
    round.errorType === undefined
      ? attributes
      : { ...attributes, [MCP_SEMCONV.errorType]: round.errorType };
  instruments.duration.record(seconds, durationAttributes);
  if (flowStarted(round)) instruments.started.add(1, attributes);
  if (round.outcome === 'rejected' && round.rejection) {
    instruments.rejected.add(1, {
      ...attributes,
      [OWN_ATTRIBUTES.rejectionReason]: round.rejection.reason,
      ...(round.rejection.detail !== undefined && {
        [OWN_ATTRIBUTES.rejectionField]: round.rejection.detail,
      }),
    });
    if (round.rejection.reason === 'expired') instruments.expired.add(1, attributes);
  }
  if (!flowEnded(round)) return;
  instruments.rounds.record(round.round, attributes);
  if (round.outcome === 'complete') instruments.completed.add(1, attributes);
  else if (round.outcome === 'declined') instruments.declined.add(1, attributes);
  else if (round.outcome === 'cancelled') instruments.cancelled.add(1, attributes);
}
