import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import type { McpOperationKind } from '../input/mcp-operation-kind';
import type { OperationCallProfile } from './operation-call';

/**
 * The profile of something that runs none of the library's own steps: no input declarations, no
 * state, no arguments to check, not public; only its guards (and the `scopes` given) decide.
 * What the global guards' stand-in, a contributed resource entry and a skill run with.
 * @internal
 */
export function noStepsProfile(
  kind: McpOperationKind,
  scopes: readonly string[] = [],
): OperationCallProfile {
  return {
    kind,
    declarations: [],
    stateMode: McpRequestStateMode.NONE,
    singleUse: false,
    replay: false,
    scopes,
    public: false,
    argumentsValidator: undefined,
  };
}
