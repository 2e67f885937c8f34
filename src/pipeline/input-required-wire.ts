import { Logger } from '@nestjs/common';
import { internalError } from '../errors/internal-error';
import type { EmittedInputRequired } from './mcp-operation-call';

const logger = new Logger('McpModule');

/** The wire form of an input-required result, with the state token the state step produced. */
export function toInputRequiredWire(emitted: EmittedInputRequired, operation: string): object {
  const { result, encodedState } = emitted;
  if (result.state !== undefined && encodedState === undefined) {
    logger.error(`MCP ${operation} returned request state that was not protected; refused`);
    throw internalError();
  }
  const wire: Record<string, unknown> = { resultType: 'input_required' };
  if (result.inputRequests.size > 0) {
    wire.inputRequests = Object.fromEntries(
      [...result.inputRequests].map(([key, request]) => [key, request.toJSON()]),
    );
  }
  if (encodedState !== undefined) wire.requestState = encodedState;
  return wire;
}
