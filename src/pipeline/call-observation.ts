import type { ObservedCall, ObservedRound } from '../observability/observed-call';
import type { McpRoundOutcome } from '../observability/mcp-flow-event';
import { claimedHeader } from '../request-state/sealing/request-state-header';
import type { OperationCall } from './operation-call';

/** What the spans and metrics of `call` are made from. @internal */
export function observedCallOf(call: OperationCall): ObservedCall {
  const context = call.context;
  const claimed = claimedHeader(call.params.requestState);
  const request = call.http.request;
  const raw = call.http.raw as { socket?: { remoteAddress?: string } } | undefined;
  const task = call.task;
  return {
    kind: call.profile.kind,
    method: context.method,
    target: call.target,
    requestId: context.requestId,
    protocolVersion: context.protocolVersion,
    meta: call.params._meta,
    headers: request.headers,
    clientAddress: request.ip ?? raw?.socket?.remoteAddress,
    // Only a session's context carries one (sessions/calls/session-server-context.ts).
    sessionId: (call.sdk as { sessionId?: string }).sessionId,
    claimedFlowTrace: claimed?.trace,
    claimedRound: claimed?.r ?? 0,
    ...(task?.step &&
      task.task.id !== undefined && { taskStep: { taskId: task.task.id, trace: task.step.trace } }),
  };
}

/** What the runner's outcome says, as far as observing it goes. */
type EndedAs =
  | { readonly kind: 'complete' | 'input_required' | 'tool_error' }
  | { readonly kind: 'error'; readonly error: { readonly code: number } };

/**
 * How `call` ended, for its span and metrics; `outcome` is absent when its method gave up (a
 * cancelled task).
 * @internal
 */
export function observedRoundOf(call: OperationCall, outcome: EndedAs | undefined): ObservedRound {
  const rejection = call.rejection;
  const header = call.opened?.header;
  if (rejection) {
    const claimed = claimedHeader(call.params.requestState);
    return {
      outcome: 'rejected',
      flowId: rejection.flowId ?? call.context.flowId,
      round: (claimed?.r ?? 0) + 1,
      errorType: outcome?.kind === 'error' ? String(outcome.error.code) : undefined,
      rejection: { reason: rejection.reason, detail: rejection.detail },
    };
  }
  const base = { flowId: call.methodContext.flowId, round: (header?.r ?? 0) + 1 };
  switch (outcome?.kind) {
    case undefined:
      return { ...base, outcome: 'cancelled' };
    case 'error':
      return { ...base, outcome: 'error', errorType: String(outcome.error.code) };
    case 'tool_error':
      return { ...base, outcome: 'error', errorType: 'tool_error' };
    case 'input_required':
      return { ...base, outcome: 'input_required' };
    case 'complete':
      return { ...base, outcome: answeredOutcome(call) };
  }
}

/** A finished round whose answers declined or cancelled ended the flow that way. */
function answeredOutcome(call: OperationCall): McpRoundOutcome {
  const responses = call.opened?.responses;
  if (!responses || responses.isEmpty) return 'complete';
  let declined = false;
  for (const response of responses.asMap().values()) {
    const action = (response as { action?: string }).action;
    if (action === 'cancel') return 'cancelled';
    if (action === 'decline') declined = true;
  }
  return declined ? 'declined' : 'complete';
}
