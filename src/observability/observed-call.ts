import type { IncomingHttpHeaders } from 'node:http';
import type { McpOperationKind } from '../input/mcp-operation-kind';
import type {
  RequestStateFailureDetail,
  RequestStateFailureReason,
} from '../request-state/sealing/request-state-protection.error';
import type { McpRoundOutcome } from './mcp-flow-event';

/** What a span and the metrics of one operation call are made from (made only when observed). @internal */
export interface ObservedCall {
  readonly kind: McpOperationKind;
  readonly method: string;
  readonly target: string;
  readonly requestId: string | number;
  readonly protocolVersion: string | undefined;
  /** The request's `params._meta`, for the trace context a client sent there. */
  readonly meta: unknown;
  readonly headers: IncomingHttpHeaders;
  readonly clientAddress: string | undefined;
  /** The 2025-era session the call runs in; never set on a 2026-07-28 request. */
  readonly sessionId: string | undefined;
  /** The first traced round's span context a retry's state header claims (unverified). */
  readonly claimedFlowTrace: string | undefined;
  /** The round a retry's state header claims (unverified), 0 on a first round. */
  readonly claimedRound: number;
  /** Set when the call is a task's step: the task and the creating request's span context. */
  readonly taskStep?: { readonly taskId: string; readonly trace: string | undefined };
}

/** How one observed call ended. @internal */
export interface ObservedRound {
  readonly outcome: McpRoundOutcome;
  readonly flowId: string;
  /** From 1; the claimed round for a refused state. */
  readonly round: number;
  readonly errorType?: string;
  readonly rejection?: {
    readonly reason: RequestStateFailureReason;
    readonly detail?: RequestStateFailureDetail;
  };
}
