import type { McpInputRequest } from '../input/mcp-input-request';
import type { McpSealedInputRequired } from './innermost-outcome';

/**
 * What state protection hands capability gating when a round ends with input required: the
 * requests as the handler built them (for the checks) and their wire form with the sealed state.
 * @internal
 */
export class EmittedRound {
  constructor(
    readonly requests: ReadonlyMap<string, McpInputRequest>,
    readonly wire: McpSealedInputRequired,
  ) {}
}
