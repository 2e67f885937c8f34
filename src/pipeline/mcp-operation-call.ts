import type { McpJsonValue } from '../util/json-value';
import type { McpInputDeclaration } from '../input/mcp-input-declaration';
import type { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { McpInputResponses } from '../input/mcp-input-responses';
import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';
import type { ReplayExecution } from '../replay/replay-execution';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import type { RequestStateBinding } from '../state/request-state-binding';
import type { RequestStateHeader } from '../state/request-state.sealer';
import type { ArgumentsValidator } from '../validation/arguments-validator.interface';

/** What an operation declares that the library's own pipeline steps need. @internal */
export interface OperationCallProfile {
  readonly declarations: readonly McpInputDeclaration[];
  readonly stateMode: McpRequestStateMode;
  /** Each incoming framework state is accepted once. */
  readonly singleUse: boolean;
  /** `ctx.elicit()` and friends are served from a ledger in framework state. */
  readonly replay: boolean;
  readonly argumentsValidator: ArgumentsValidator | undefined;
}

/** What this round emits: the operation's input-required result and the state token for it. */
export interface EmittedInputRequired {
  readonly result: McpInputRequiredResult;
  readonly encodedState: string | undefined;
}

/**
 * Everything one MCP operation call carries through the Nest pipeline. It travels by position (the
 * fourth handler argument, after the HTTP request, response and `next`), so every library step
 * reads and records it explicitly; the dispatcher builds the wire answer from what it recorded.
 * @internal
 */
export class McpOperationCall {
  /** The arguments the handler receives; replaced by the validated value before the handler runs. */
  args: Record<string, unknown>;
  responses = McpInputResponses.empty();
  applicationState: string | undefined;
  frameworkState: McpJsonValue | undefined;
  /** What this round's framework state is bound to, once the round is open. */
  stateBinding: RequestStateBinding | undefined;
  /** Header of the opened framework state, when this round continues a flow. */
  openedHeader: RequestStateHeader | undefined;
  /** The replay ledger the opened framework state carried, as sealed. */
  openedLedger: string | undefined;
  /** The ledger cursor of a `replay: true` operation, set before its handler runs. */
  replay: ReplayExecution | undefined;
  /**
   * Recorded by the innermost library step as the handler's result passes it, so that what outer
   * interceptors make of an input-required result can never change what reaches the wire.
   */
  emitted: EmittedInputRequired | undefined;
  /** For `completion/complete`: the argument being completed and its partial value. */
  completion: { readonly argument: string; readonly value: string } | undefined;
  /** The completer's suggestions, recorded as they leave it, for the same reason as `emitted`. */
  completionValues: readonly string[] | undefined;
  /** What the operation's own code sees of this call. */
  readonly context: McpRequestContext;

  constructor(
    readonly purpose: 'operation' | 'completion',
    args: Record<string, unknown>,
    /** Request parameters with exact numbers. */
    readonly params: Record<string, unknown>,
    readonly profile: OperationCallProfile,
    createContext: (call: McpOperationCall) => McpRequestContext,
  ) {
    this.args = args;
    this.context = createContext(this);
  }
}

/** Position of the {@link McpOperationCall} among a handler's arguments. @internal */
export const OPERATION_CALL_INDEX = 3;

/** The call among an enhancer's arguments, if it serves an MCP operation. @internal */
export function operationCallOf(args: readonly unknown[]): McpOperationCall | undefined {
  const call = args[OPERATION_CALL_INDEX];
  return call instanceof McpOperationCall ? call : undefined;
}
