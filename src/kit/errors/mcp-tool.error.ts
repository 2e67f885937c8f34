import { IntrinsicException } from '@nestjs/common';

/**
 * Throw from a tool to end the call with an `isError: true` result whose text is this message.
 * Use it for failures the model should see and may react to (a missing record, a rejected input).
 * The message is sent to the client verbatim. It is an expected outcome, so Nest does not log it.
 *
 * @example
 * throw new McpToolError(`No order ${id}`);
 * @publicApi
 */
export class McpToolError extends IntrinsicException {
  override readonly name = 'McpToolError';
}
