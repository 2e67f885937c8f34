import type { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { McpSealedInputRequired } from './innermost-outcome';

/**
 * The wire form of an input-required result, with the state token state protection produced.
 * @internal
 */
export function toSealedInputRequired(
  result: McpInputRequiredResult,
  encodedState: string | undefined,
): McpSealedInputRequired {
  const requests =
    result.inputRequests.size > 0
      ? Object.fromEntries(
          [...result.inputRequests].map(([key, request]) => [key, request.toJSON()]),
        )
      : undefined;
  return new McpSealedInputRequired(requests, encodedState);
}
