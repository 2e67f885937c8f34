import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { clip } from '../../kit/clip';

/**
 * What a tool or prompt nobody serves answers — and, on every path, one the caller's lists hide.
 * @internal
 */
export function unknownOperation(kind: 'tool' | 'prompt', name: string): ProtocolError {
  return new ProtocolError(McpErrorCode.InvalidParams, `Unknown ${kind}: ${clip(name)}`, {
    name: clip(name),
  });
}

/** What a resource nobody serves answers (and one the caller's lists hide). @internal */
export function resourceNotFound(uri: string): ProtocolError {
  return new ProtocolError(McpErrorCode.InvalidParams, 'Resource not found', { uri: clip(uri) });
}
