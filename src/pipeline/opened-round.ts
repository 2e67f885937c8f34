import type { McpInputResponses } from '../input/mcp-input-responses';
import type { McpOperationContext } from '../input/mcp-operation-context.interface';
import type { ReplayExecution } from '../request-state/replay/replay-execution';
import type { RequestStateBinding } from '../request-state/sealing/request-state-binding';
import type { RequestStateHeader } from '../request-state/sealing/request-state-header';
import type { McpJsonValue } from '../kit/json-value';
import type { SealedFlow } from '../request-state/sealing/sealed-flow';

/**
 * One round as state protection opened it: the verified state and answers the method may use, and
 * what sealing the next state needs. A value: nothing writes into it after it is made.
 * @internal
 */
export interface OpenedRound {
  /** What this round's state is bound to; absent until a state is opened or sealed. */
  readonly binding: RequestStateBinding | undefined;
  /** Header of the opened framework state, when this round continues a flow. */
  readonly header: RequestStateHeader | undefined;
  readonly frameworkState: McpJsonValue | undefined;
  readonly applicationState: string | undefined;
  /** This round's input responses, their protocol shapes checked. */
  readonly responses: McpInputResponses;
  /** The ledger cursor of a `replay: true` operation. */
  readonly replay: ReplayExecution | undefined;
  /** The flow the round continues (sealed in its state) or starts. */
  readonly flow: SealedFlow;
  /** What the method sees of the call: the answers, the state and, with replay, the asks. */
  readonly context: McpOperationContext;
}
