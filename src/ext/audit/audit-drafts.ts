import type {
  McpCallEvent,
  McpCallStart,
  McpCoreEvent,
  McpKeyringEvent,
  McpSessionChangeEvent,
  McpSkillServedEvent,
  McpTaskChangeEvent,
} from '../../extension-api';
import type { AuditDeferred } from './audit-pending';
import {
  AUDIT_EXTENSION,
  type AuditDraft,
  type AuditOutcome,
  type AuditValue,
} from './audit-record';
import { sortMemberNames } from '../../kit/rfc8785-json';
import { randomUuid } from '../../kit/random-uuid';
import { auditTimestamp } from './audit-timestamp';
import { auditDigest, auditText, clearFields } from './audit-values';

/** The principal of the trail's own records (checkpoints) and of key changes. @internal */
export const SYSTEM_PRINCIPAL = 'system';

type Own = Record<string, AuditValue | undefined>;

/**
 * A draft record; `own` and `more` are this module's context (`undefined` fields left out; a call's
 * records share its context and add their own).
 * @internal
 */
export function draft(
  eventType: string,
  principal: string,
  target: string | null,
  outcome: AuditOutcome,
  own: Own,
  more?: Own,
  at?: number,
): AuditDraft {
  // Fields in RFC 8785's member order, like the record's own: canonicalizing it copies nothing.
  const names = Object.keys(own);
  if (more) for (const name in more) names.push(name);
  const fields: Record<string, AuditValue> = {};
  for (const name of sortMemberNames(names)) {
    // (`null` is a value: only `undefined` is left out.)
    let value = own[name];
    if (value === undefined && more) value = more[name];
    if (value !== undefined) fields[name] = value;
  }
  // In RFC 8785's member order, so that hashing the record copies nothing at this level.
  return {
    event_id: randomUuid(),
    event_type: eventType,
    extensions: { [AUDIT_EXTENSION]: fields },
    occurred_at: auditTimestamp(at),
    outcome,
    principal_id: auditText(principal),
    tool_name: target === null ? null : auditText(target),
  };
}

/**
 * A call as its records name it: its `call_id` and, once its start was recorded, the digest of its
 * arguments then (its outcome's record says the same, without hashing them again). @internal
 */
export interface AuditedCall {
  readonly id: string;
  readonly argumentsDigest?: string;
}

/** What every record of a call says about it. */
function callContext(call: McpCallStart | McpCallEvent, audited: AuditedCall): Own {
  return {
    arguments: clearFields(call.arguments, call.clearArguments),
    arguments_digest: audited.argumentsDigest ?? auditDigest(call.arguments),
    call_id: audited.id,
    era: call.protocolVersion ?? null,
    flow_id: 'flowId' in call ? (call.flowId ?? null) : undefined,
    method: call.method,
    operation: call.operation,
    request_id: call.requestId === undefined ? undefined : auditText(String(call.requestId)),
    round: 'round' in call ? String(call.round) : String(call.claimedRound + 1),
    // A session id is a handle a caller presents: recorded as its digest.
    session: call.sessionId === undefined ? undefined : auditDigest(call.sessionId),
    task_id: call.taskId,
    trace: 'trace' in call ? call.trace : undefined,
  };
}

/** A strict call's `mcp.call.started`, written before anything of it runs. @internal */
export function startedDraft(start: McpCallStart, audited: AuditedCall): AuditDraft {
  return draft(
    'mcp.call.started',
    start.principal,
    start.target,
    'allowed',
    callContext(start, audited),
  );
}

/** The records of one core event (a call's answers come before its outcome). @internal */
export function draftsOf(
  event: McpCoreEvent,
  auditedCall: (handle: object) => AuditedCall,
): AuditDraft[] {
  switch (event.kind) {
    case 'call':
      return callDrafts(event, auditedCall(event.handle), Date.now());
    case 'keyring':
      return [keyDraft(event)];
    case 'task':
      return [taskDraft(event)];
    case 'session':
      return [sessionDraft(event)];
    case 'skill':
      return [skillDraft(event)];
  }
}

/**
 * A call's records, drafted when the writer next writes: the event (the call's values as it
 * ended: nothing of a call changes once its event is published), its `call_id` and when it ended.
 * @internal
 */
export class DeferredCallDrafts implements AuditDeferred {
  constructor(
    private readonly event: McpCallEvent,
    private readonly audited: AuditedCall,
    private readonly at: number,
  ) {}

  drafts(): AuditDraft[] {
    return callDrafts(this.event, this.audited, this.at);
  }
}

function callDrafts(event: McpCallEvent, audited: AuditedCall, at: number): AuditDraft[] {
  const context = callContext(event, audited);
  const drafts: AuditDraft[] = [];
  if (event.answered)
    drafts.push(
      draft(
        'mcp.input.answered',
        event.principal,
        event.target,
        'allowed',
        context,
        {
          answered: event.answered.map(({ key, action }) => ({
            key: auditText(key),
            action: auditText(action),
          })),
        },
        at,
      ),
    );
  drafts.push(outcomeDraft(event, context, at));
  return drafts;
}

function outcomeDraft(event: McpCallEvent, context: Own, at: number): AuditDraft {
  const [eventType, outcome, own] = outcomeOf(event);
  return draft(eventType, event.principal, event.target, outcome, context, own, at);
}

/** A call's outcome record: its event type, its SEP-3004 outcome and its own fields. */
function outcomeOf(event: McpCallEvent): [string, AuditOutcome, Own] {
  switch (event.outcome) {
    case 'complete':
      return ['mcp.call.completed', 'allowed', { result_digest: auditDigest(event.result) }];
    case 'input_required':
      return [
        'mcp.input.requested',
        'deferred',
        { asked: (event.asked ?? []).map(({ key, kind }) => ({ key: auditText(key), kind })) },
      ];
    case 'tool_error':
      return ['mcp.call.completed', 'allowed', { result: 'tool_error' }];
    case 'refused':
      return [
        'mcp.call.refused',
        'denied',
        { code: String(event.code), reason: event.refusal?.reason, detail: event.refusal?.detail },
      ];
    case 'error':
      return [
        'mcp.call.failed',
        'error',
        { code: event.code === undefined ? 'gave_up' : String(event.code) },
      ];
  }
}

function keyDraft(event: McpKeyringEvent): AuditDraft {
  return draft(`mcp.key.${event.action}`, SYSTEM_PRINCIPAL, null, 'allowed', {
    key_id: auditText(event.keyId),
    scope: event.scope,
  });
}

function taskDraft(event: McpTaskChangeEvent): AuditDraft {
  const type =
    event.previousStatus === undefined
      ? 'mcp.task.created'
      : event.status === 'cancelled'
        ? 'mcp.task.cancelled'
        : event.status === 'completed' || event.status === 'failed'
          ? 'mcp.task.finished'
          : 'mcp.task.updated';
  return draft(
    type,
    event.principal ?? SYSTEM_PRINCIPAL,
    event.toolName ?? null,
    event.status === 'failed'
      ? 'error'
      : event.status === 'input_required'
        ? 'deferred'
        : 'allowed',
    {
      task_id: auditText(event.taskId),
      status: auditText(event.status),
      previous_status: event.previousStatus,
      flow_id: event.flowId,
    },
  );
}

function sessionDraft(event: McpSessionChangeEvent): AuditDraft {
  return draft(`mcp.session.${event.action}`, event.principal, null, 'allowed', {
    session: auditDigest(event.sessionId),
    era: event.protocolVersion,
  });
}

function skillDraft(event: McpSkillServedEvent): AuditDraft {
  return draft('mcp.skill.served', event.principal, event.uri, 'allowed', {
    method: event.method,
  });
}

/** An `audit.records_dropped` record: what a best-effort trail could not keep. @internal */
export function droppedDraft(count: number, reason: string): AuditDraft {
  return draft('audit.records_dropped', SYSTEM_PRINCIPAL, null, 'error', {
    dropped: String(count),
    reason,
  });
}
