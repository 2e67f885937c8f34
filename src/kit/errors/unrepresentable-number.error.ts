import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from './mcp-error-codes';

/**
 * The -32602 for a number a double cannot hold (`1e400`, a 400-digit integer) where the module
 * must bind, keep or compare it exactly: `data.field` names where it is (clipped).
 * @internal
 */
export function unrepresentableNumberError(field: string): ProtocolError {
  return new ProtocolError(
    McpErrorCode.InvalidParams,
    'Invalid params: a number is too large to represent',
    { field },
  );
}
