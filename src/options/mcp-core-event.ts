/**
 * The core's events, as {@link McpCoreEvents} hands them to an extension that observes them (the
 * audit trail): plain values, made only while someone observes. None carries a credential, an
 * answer's value or key material; arguments and results are the call's own values, which the
 * observer digests (or records in clear where the operation lists a field under `audit`).
 * @internal
 */
export type McpCoreEvent =
  McpCallEvent | McpKeyringEvent | McpTaskChangeEvent | McpSessionChangeEvent | McpSkillServedEvent;

/** Why the module refused a call, as its own step named it. @internal */
export type McpRefusalReason =
  /** A client capability the operation requires is missing (gating). */
  | 'capability'
  /** The request state was refused: `detail` says why (`replayed`, `malformed`, `expired`…). */
  | 'state'
  /** The token lacks a scope the operation declares (HTTP 403 `insufficient_scope`). */
  | 'scopes'
  /** A guard refused (-32003); with lists per caller the client was answered as for an unknown tool. */
  | 'guard'
  /** No credential, or a bad one (-32001). */
  | 'unauthenticated'
  /** A rate limit (-32029). */
  | 'rate_limit'
  /** Invalid arguments or params (-32602). */
  | 'invalid_params'
  /** No such tool, prompt or resource (or one the caller's lists hide, before any guard ran). */
  | 'unknown_target'
  /** The server could not take the call now (-32000: a store full, the audit trail down). */
  | 'busy';

/** What one call is, from its start to its end. @internal */
export interface McpCallIdentity {
  /** The same object in a call's `starting` and its outcome: for pairing them, nothing else. */
  readonly handle: object;
  /** `tool`, `prompt` or `resource`. */
  readonly operation: string;
  /** The JSON-RPC method (`tools/call`…). */
  readonly method: string;
  /** Tool or prompt name, or resource URI. */
  readonly target: string;
  /** The caller's partition, as the partition resolver named it after the guards ran. */
  readonly principal: string;
  readonly protocolVersion: string | undefined;
  readonly requestId: string | number | undefined;
  /** The 2025-era session the call ran in. */
  readonly sessionId: string | undefined;
  /** The task the call ran as a step of. */
  readonly taskId: string | undefined;
  /** The arguments as validated (as sent when validation refused them). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Argument fields the operation lets an observer record in clear (`audit.arguments`). */
  readonly clearArguments: readonly string[];
}

/** A call about to run its method (after its guards), awaited by a `strict` observer. @internal */
export interface McpCallStart extends McpCallIdentity {
  /** The round the call's request state claims (unverified yet), 0 on a first round. */
  readonly claimedRound: number;
}

/** How a call ended: one per round of a flow, and one per refusal. @internal */
export interface McpCallEvent extends McpCallIdentity {
  readonly kind: 'call';
  /** The flow across rounds; for a refused state, the claimed flow when it was authentic. */
  readonly flowId: string | undefined;
  /** From 1; for a refused state, the round it claimed. */
  readonly round: number;
  readonly outcome: 'complete' | 'input_required' | 'tool_error' | 'error' | 'refused';
  /** The JSON-RPC error code answered, for `error` and `refused`. */
  readonly code?: number;
  readonly refusal?: { readonly reason: McpRefusalReason; readonly detail?: string };
  /** What an `input_required` round asked: each input request's key and kind, never its text. */
  readonly asked?: readonly { readonly key: string; readonly kind: string }[];
  /** Answers that arrived with this round: each key and the action taken, never a value. */
  readonly answered?: readonly { readonly key: string; readonly action: string }[];
  /** A complete outcome's value (before it is answered). */
  readonly result?: unknown;
  /** The round's span context (`traceparent`), when it was traced. */
  readonly trace?: string;
}

/** A key of the request-state keyring changed on this instance. @internal */
export interface McpKeyringEvent {
  readonly kind: 'keyring';
  readonly action: 'staged' | 'activated' | 'removed';
  readonly keyId: string;
  /**
   * `instance`: this instance alone; `fleet`: this instance rotated the whole fleet; `fleet-sync`:
   * applied here because another instance rotated the fleet.
   */
  readonly scope: 'instance' | 'fleet' | 'fleet-sync';
}

/** A task was created or changed status. @internal */
export interface McpTaskChangeEvent {
  readonly kind: 'task';
  readonly taskId: string;
  readonly status: string;
  /** The status it had before; absent when the task was just created. */
  readonly previousStatus: string | undefined;
  readonly flowId: string | undefined;
  /** The partition the task belongs to. */
  readonly principal: string | undefined;
  readonly toolName: string | undefined;
}

/** A 2025-era session was opened (`initialize`) or closed (`DELETE`). @internal */
export interface McpSessionChangeEvent {
  readonly kind: 'session';
  readonly action: 'opened' | 'closed';
  readonly sessionId: string;
  readonly principal: string;
  readonly protocolVersion: string;
}

/** A skill (or one of its files) was served to a caller. @internal */
export interface McpSkillServedEvent {
  readonly kind: 'skill';
  readonly method: string;
  readonly uri: string;
  readonly principal: string;
}
