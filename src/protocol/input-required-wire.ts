import { Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../errors/mcp-error-codes';
import type { McpInputRequiredResult } from '../input/mcp-input-required.result';
import type { CallRound } from './call-round';

const logger = new Logger('McpModule');

/** The wire form of an input-required result, with the state the state interceptor produced. */
export function toInputRequiredWire(
  result: McpInputRequiredResult,
  round: CallRound,
  operation: string,
): object {
  if (result.state !== undefined && round.encodedState === undefined) {
    // The state interceptor never ran (removed from the pipeline), so the state was never protected.
    logger.error(
      `MCP ${operation} returned request state that was not protected; keep McpRequestStateInterceptor on MCP operations`,
    );
    throw new ProtocolError(McpErrorCode.InternalError, 'Internal error');
  }
  const wire: Record<string, unknown> = { resultType: 'input_required' };
  if (result.inputRequests.size > 0) {
    wire.inputRequests = Object.fromEntries(
      [...result.inputRequests].map(([key, request]) => [key, request.toJSON()]),
    );
  }
  if (result.state !== undefined) wire.requestState = round.encodedState;
  return wire;
}
