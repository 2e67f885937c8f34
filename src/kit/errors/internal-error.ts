import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from './mcp-error-codes';

/**
 * The bare `-32603 Internal error` every unexpected failure answers with; details go to the log.
 * @internal
 */
export function internalError(): ProtocolError {
  return new ProtocolError(McpErrorCode.InternalError, 'Internal error');
}
