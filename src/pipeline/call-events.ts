import type { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../kit/errors/mcp-error-codes';
import { McpHttpRefusal } from '../kit/errors/mcp-http-refusal.error';
import type {
  McpCallEvent,
  McpCallIdentity,
  McpCallStart,
  McpRefusalReason,
} from '../options/mcp-core-event';
import { claimedHeader } from '../request-state/sealing/request-state-header';
import type { OperationCall } from './operation-call';
import type { CallerPartitions } from '../auth/identity/caller-partitions';
import { andThen } from '../kit/maybe-promise';
import type { McpCoreEvents } from '../options/mcp-core-events';

/** What the runner's outcome says, as far as the events go (the runner's own type, structurally). */
type EndedAs =
  | { readonly kind: 'complete'; readonly value: unknown }
  | {
      readonly kind: 'input_required';
      readonly wire: { readonly inputRequests?: Readonly<Record<string, unknown>> };
    }
  | { readonly kind: 'tool_error' }
  | { readonly kind: 'error'; readonly error: ProtocolError };

const NO_FIELDS: readonly string[] = Object.freeze([]);

/** Who and what a call is, for the core's events. @internal */
export function callIdentityOf(call: OperationCall, principal: string): McpCallIdentity {
  const context = call.context;
  const task = call.task;
  return {
    handle: call,
    operation: call.profile.kind,
    method: context.method,
    target: call.target,
    principal,
    protocolVersion: context.protocolVersion,
    requestId: context.requestId,
    // Only a session's context carries one (sessions/calls/session-server-context.ts).
    sessionId: (call.sdk as { sessionId?: string }).sessionId,
    taskId: task?.step ? task.task.id : undefined,
    arguments: call.methodArgs,
    clearArguments: call.profile.auditArguments ?? NO_FIELDS,
  };
}

/** A call about to run, for an observer that awaits it. @internal */
export function callStartOf(call: OperationCall, principal: string): McpCallStart {
  return {
    ...callIdentityOf(call, principal),
    claimedRound: claimedHeader(call.params.requestState)?.r ?? 0,
  };
}

/** How a call ended, for the core's events; `outcome` is absent when its method gave up. @internal */
export function callEventOf(
  call: OperationCall,
  outcome: EndedAs | undefined,
  principal: string,
  trace?: string,
): McpCallEvent {
  const rejection = call.rejection;
  const claimed = rejection ? claimedHeader(call.params.requestState) : undefined;
  const error = outcome?.kind === 'error' ? outcome.error : undefined;
  const refusal = error && refusalOf(call, error);
  // The identity's object, completed in place: an event per call, and no copy of it.
  return Object.assign(callIdentityOf(call, principal), {
    kind: 'call' as const,
    flowId: rejection ? rejection.flowId : call.methodContext.flowId,
    round: rejection ? (claimed?.r ?? 0) + 1 : (call.opened?.header?.r ?? 0) + 1,
    answered: answeredOf(call),
    trace,
    outcome: endedAs(outcome, refusal),
    code: error?.code,
    refusal,
    asked: outcome?.kind === 'input_required' ? askedOf(outcome.wire.inputRequests) : undefined,
    result: outcome?.kind === 'complete' ? outcome.value : undefined,
  });
}

function endedAs(outcome: EndedAs | undefined, refusal: unknown): McpCallEvent['outcome'] {
  if (outcome === undefined) return 'error';
  if (outcome.kind === 'error') return refusal ? 'refused' : 'error';
  return outcome.kind;
}

/**
 * Which of the module's refusals an error is, by its code and what the call recorded; `undefined`
 * for a failure of the operation itself (-32603, or an error the method threw on purpose).
 * @internal
 */
export function refusalOf(
  call: OperationCall,
  error: ProtocolError,
): { readonly reason: McpRefusalReason; readonly detail?: string } | undefined {
  if (call.rejection) return { reason: 'state', detail: call.rejection.reason };
  switch (error.code) {
    case McpErrorCode.MissingRequiredClientCapability:
      return { reason: 'capability' };
    case McpErrorCode.Unauthorized:
      return { reason: 'unauthenticated' };
    case McpErrorCode.Forbidden:
      return error instanceof McpHttpRefusal ? { reason: 'scopes' } : { reason: 'guard' };
    case McpErrorCode.RateLimited:
      return { reason: 'rate_limit' };
    case McpErrorCode.InvalidParams:
      return { reason: 'invalid_params' };
    case McpErrorCode.ServerBusy:
      return { reason: 'busy' };
    default:
      return undefined;
  }
}

/** Each input request's key and kind (`elicitation.form`, `elicitation.url`, `sampling`, `roots`). */
function askedOf(
  inputRequests: Readonly<Record<string, unknown>> | undefined,
): { key: string; kind: string }[] {
  if (!inputRequests) return [];
  return Object.entries(inputRequests).map(([key, request]) => {
    const { method, params } = (request ?? {}) as { method?: unknown; params?: { mode?: unknown } };
    return { key, kind: kindOf(method, params?.mode) };
  });
}

function kindOf(method: unknown, mode: unknown): string {
  switch (method) {
    case 'elicitation/create':
      return mode === 'url' ? 'elicitation.url' : 'elicitation.form';
    case 'sampling/createMessage':
      return 'sampling';
    case 'roots/list':
      return 'roots';
    default:
      return typeof method === 'string' ? method : 'unknown';
  }
}

/** The answers that came with the round: keys and actions (`accept`, `decline`, `cancel`, `answered`). */
function answeredOf(call: OperationCall): { key: string; action: string }[] | undefined {
  const responses = call.opened?.responses;
  if (!responses || responses.isEmpty) return undefined;
  const answered: { key: string; action: string }[] = [];
  for (const [key, response] of responses.asMap()) {
    const action = (response as { action?: unknown }).action;
    answered.push({ key, action: typeof action === 'string' ? action : 'answered' });
  }
  return answered;
}

/**
 * Tells the core's observers (an audit trail) how `call` ended, once its partition is known; a
 * no-op while nobody observes.
 * @internal
 */
export function publishCall(
  events: McpCoreEvents,
  partitions: CallerPartitions,
  call: OperationCall,
  outcome: EndedAs | undefined,
  trace: string | undefined,
): void {
  if (!events.watched) return;
  try {
    const published = andThen(partitions.resolve(call.context, call.detached), (principal) =>
      events.publish(callEventOf(call, outcome, principal, trace)),
    );
    // An asynchronous resolver's failure was the call's to answer; nothing to observe then.
    if (published instanceof Promise) published.catch(() => undefined);
  } catch {
    // A partition resolver that throws was answered by the call already; nothing to observe.
  }
}
