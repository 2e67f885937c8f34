import type {
  RequestStateFailureDetail,
  RequestStateFailureReason,
} from '../request-state/sealing/request-state-protection.error';

/**
 * How one round of an operation ended, as the module's spans, metrics and events name it:
 * `declined` and `cancelled` when the client's answers this round declined or cancelled and the
 * operation then finished, `rejected` when its request state was refused.
 * @publicApi
 */
export type McpRoundOutcome =
  'complete' | 'input_required' | 'declined' | 'cancelled' | 'rejected' | 'error';

/** One round of an operation, as {@link McpFlowEvents} reports it. @publicApi */
export interface McpRoundEvent {
  readonly kind: 'round';
  readonly flowId: string;
  /** JSON-RPC method. */
  readonly method: string;
  /** Tool or prompt name, or resource URI. */
  readonly target: string;
  /** The round number, from 1 (for a refused retry, the round its state claimed). */
  readonly round: number;
  readonly outcome: McpRoundOutcome;
  /** Round 1 asked for input: a multi-round flow began. */
  readonly flowStarted: boolean;
  /** A later round finished the flow (`complete`, `declined` or `cancelled`). */
  readonly flowEnded: boolean;
  /** Why the state was refused, for `rejected`. */
  readonly rejection?: {
    readonly reason: RequestStateFailureReason;
    readonly detail?: RequestStateFailureDetail;
  };
  /** The JSON-RPC error code, or `tool_error`, for `error` and `rejected`. */
  readonly errorType?: string;
  readonly durationSeconds: number;
  /** The task the round ran for, when it ran as a task step. */
  readonly taskId?: string;
}

/** A task that changed status. @publicApi */
export interface McpTaskEvent {
  readonly kind: 'task';
  readonly taskId: string;
  readonly flowId: string | undefined;
  readonly status: string;
}

/** What {@link McpFlowEvents} reports. @publicApi */
export type McpFlowEvent = McpRoundEvent | McpTaskEvent;
