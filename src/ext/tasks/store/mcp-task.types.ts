import type { McpJsonValue } from '../../../kit/json-value';
/** @internal */
export type { McpTaskCreation, McpTaskSupport } from '../../../extension-api';

/**
 * Extension id of the tasks extension (SEP-2663), as advertised and as clients declare it.
 * @publicApi
 */
export const MCP_TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Status of a task. @publicApi */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Statuses a task never leaves. @internal */
export const TERMINAL_TASK_STATUSES: ReadonlySet<McpTaskStatus> = new Set([
  'completed',
  'failed',
  'cancelled',
]);

/** A JSON-RPC error a failed task ended with. @publicApi */
export interface McpTaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: McpJsonValue;
}

/**
 * A task as a {@link TaskStore} keeps it. Plain JSON, so any store can serialize it. `version`
 * grows by one with every write; stores use it for their compare-and-set.
 *
 * @publicApi
 */
export interface McpTaskRecord {
  readonly taskId: string;
  readonly version: number;
  /** Authorization partition of the caller that created it; every `tasks/*` call must match. */
  readonly partition: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  readonly ttlMs: number;
  /** Epoch ms after which the task is gone. */
  readonly expiresAt: number;
  readonly pollIntervalMs: number;
  /**
   * The tool call the task runs: `name`, `arguments` and the request `_meta`, as the client sent
   * them, and the digest of the tool's definition it was created under: a step finds the tool
   * defined otherwise (a deploy or a run-time re-registration changed its schemas or declarations)
   * and fails the task with `-32602 Invalid request state` before the method runs. Records written
   * before it existed run as before.
   */
  readonly call: {
    readonly name: string;
    readonly params: Record<string, McpJsonValue>;
    readonly definition?: string;
  };
  /** Outstanding input requests (wire shape) while `input_required`. */
  readonly inputRequests?: Record<string, McpJsonValue>;
  /** Every answer received over the task's life, by key, as plain JSON. */
  readonly inputResponses: Record<string, McpJsonValue>;
  /**
   * The same answers as JSON text with every number as the client wrote it (`3.50` stays `3.50`):
   * what the next run receives. A string, so any store keeps it exactly; records written before it
   * existed run with `inputResponses`.
   */
  readonly exactInputResponses?: string;
  /** The protected state the last run emitted with its input requests; never on the wire. */
  readonly requestState?: string;
  /** Runs so far (each resume runs the operation again). */
  readonly runs: number;
  /**
   * Who the caller was, as the guards left `req.user` / `req.auth` (no token) on the request that
   * created or last answered the task: for a step that runs on another instance. Never on the wire.
   */
  readonly principal?: McpJsonValue;
  /**
   * The claim of the step running now: a random token the step took before it started, which
   * only its own writes present — a step that lost its runner's lock, or was superseded, cannot
   * commit over the one that took over. Never on the wire.
   */
  readonly stepToken?: string;
  /**
   * The flow of the request that created the task: its id and, when that request was traced, its
   * span context (`traceparent` spelling), so every step, on any instance, continues the flow.
   * Records written before it existed run as flows of their own.
   */
  readonly flow?: { readonly id: string; readonly trace?: string };
  readonly result?: Record<string, McpJsonValue>;
  readonly error?: McpTaskError;
}
