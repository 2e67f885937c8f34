import { clip } from '../kit/clip';
import type { McpInputRequest } from './mcp-input-request';

/**
 * The log line for input requests an operation emitted without declaring them (a server bug).
 * @internal
 */
export function undeclaredInputMessage(
  method: string,
  target: string,
  requests: Iterable<readonly [string, McpInputRequest]>,
): string {
  const listed = [...requests].map(([key, request]) => `${clip(key)} (${request.type})`).join(', ');
  return (
    `MCP ${method} "${clip(target)}" emitted undeclared input requests: ${listed}. ` +
    'Declare them with @McpMayRequestInput.'
  );
}
