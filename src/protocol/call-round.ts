import { McpInputResponses } from '../input/mcp-input-responses';
import type { McpJsonValue } from '../input/json-value';
import type { McpInputDeclaration } from '../input/mcp-input-declaration';
import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';
import { McpRequestStateMode } from '../state/mcp-request-state-mode.enum';
import type { RequestStateHeader } from '../state/request-state.sealer';

/**
 * What the input and state interceptors learn about one call, held beside its request context.
 * @internal
 */
export class CallRound {
  responses = McpInputResponses.empty();
  applicationState: string | undefined;
  frameworkState: McpJsonValue | undefined;
  /** Header of the opened framework state, when this round continues a flow. */
  openedHeader: RequestStateHeader | undefined;
  /** The state token to emit with an input-required result (sealed framework state or application state). */
  encodedState: string | undefined;

  constructor(
    /** Request parameters with exact numbers. */
    readonly params: Record<string, unknown>,
    readonly declarations: readonly McpInputDeclaration[],
    readonly stateMode: McpRequestStateMode = McpRequestStateMode.NONE,
  ) {}
}

const CALL_ROUND = Symbol('mcp.callRound');

/** Attaches a round to a request context. @internal */
export function attachCallRound(context: McpRequestContext, round: CallRound): void {
  Object.defineProperty(context, CALL_ROUND, { value: round, enumerable: false });
}

/** The round of a request context. @internal */
export function callRoundOf(context: McpRequestContext): CallRound | undefined {
  return (context as unknown as Record<symbol, CallRound | undefined>)[CALL_ROUND];
}
