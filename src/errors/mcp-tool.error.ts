import { McpError } from './mcp.error';

/**
 * Throw from a tool to end the call with an `isError: true` result whose text is this message.
 * Use it for failures the model should see and may react to (a missing record, a rejected input).
 * The message is sent to the client verbatim.
 *
 * @example
 * throw new McpToolError(`No order ${id}`);
 * @publicApi
 */
export class McpToolError extends McpError {}
