import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from './mcp-error-codes';
import { MIN_RETRY_AFTER_MS } from '../fair-share';

/**
 * The -32000 a call gets when a store has no room for its caller now: a fixed message and
 * `data.retryAfterMs`, when trying again may succeed (docs/errors.md).
 * @internal
 */
export function serverBusy(message: string, retryAfterMs: number | undefined): ProtocolError {
  return new ProtocolError(McpErrorCode.ServerBusy, message, {
    retryAfterMs: retryAfterMs ?? MIN_RETRY_AFTER_MS,
  });
}
