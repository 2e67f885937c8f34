import { HttpException, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../kit/errors/mcp-error-codes';
import { McpToolError } from '../kit/errors/mcp-tool.error';
import {
  rateLimitedRefusal,
  unauthorizedRefusal,
  type RateLimitErrorFormat,
} from '../kit/errors/mcp-http-refusal.error';
import { rateLimitFactsOf } from '../kit/errors/rate-limit-facts';
import { internalError } from '../kit/errors/internal-error';
import { clip } from '../kit/clip';
import type { McpOperationKind } from '../input/mcp-operation-kind';

/**
 * What a failed operation turns into: a JSON-RPC error, or (tools only) an `isError` result.
 * @internal
 */
export type OperationFailure =
  { type: 'error'; error: ProtocolError } | { type: 'tool-error-result'; message: string };

const logger = new Logger('McpModule');

function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

function validationDetails(exception: HttpException): unknown {
  const message = (exception.getResponse() as { message?: unknown }).message;
  return Array.isArray(message) ? message : undefined;
}

/**
 * Maps what an operation threw onto the wire. The table is documented in `docs/errors.md`:
 * protocol errors pass through; 401 becomes -32001 answered with HTTP 401 and a Bearer challenge
 * (the reason logged, never sent); 403 becomes -32003; 429 (`@nestjs/throttler`) becomes -32029
 * with HTTP 429, `Retry-After` and `data.retryAfterMs` (`retryAfterMs` reads what the guard set),
 * or -32023 as the draft SEP-3304 says with `rateLimitErrors: 'sep-3304'`; 400 (e.g. `ValidationPipe`) becomes
 * -32602 with the validation messages; other 4xx become an `isError` tool result (or -32602 for
 * prompts and resources); `McpToolError` becomes an `isError` result; anything else (including a
 * 5xx `HttpException`) is a bug, answered with a bare -32603 and logged once at error level with
 * its message and stack.
 * @internal
 */
export function mapOperationError(
  error: unknown,
  kind: McpOperationKind,
  target: string,
  retryAfterMs: () => number | undefined = () => undefined,
  rateLimitErrors: RateLimitErrorFormat = '-32029',
): OperationFailure {
  if (error instanceof ProtocolError) return { type: 'error', error };
  if (error instanceof McpToolError && kind === 'tool')
    return { type: 'tool-error-result', message: error.message };
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 401) {
      logger.debug(
        `MCP ${kind} "${clip(target)}" unauthorized: ${clip(httpExceptionMessage(error))}`,
      );
      return { type: 'error', error: unauthorizedRefusal() };
    }
    if (status === 429)
      return {
        type: 'error',
        error: rateLimitedRefusal(retryAfterMs() ?? 1000, rateLimitErrors, rateLimitFactsOf(error)),
      };
    if (status === 403)
      return { type: 'error', error: new ProtocolError(McpErrorCode.Forbidden, 'Forbidden') };
    if (status === 400) {
      const details = validationDetails(error);
      return {
        type: 'error',
        error: new ProtocolError(
          McpErrorCode.InvalidParams,
          `Invalid params: ${httpExceptionMessage(error)}`,
          details && { errors: details },
        ),
      };
    }
    if (status < 500) {
      return kind === 'tool'
        ? { type: 'tool-error-result', message: httpExceptionMessage(error) }
        : {
            type: 'error',
            error: new ProtocolError(McpErrorCode.InvalidParams, httpExceptionMessage(error)),
          };
    }
  }
  // The module runs the exception filters itself, so this is the one place an unexpected failure is logged.
  if (error instanceof Error) {
    logger.error(`MCP ${kind} "${clip(target)}" failed: ${error.message}`, error.stack);
  } else {
    logger.error(`MCP ${kind} "${clip(target)}" failed with a thrown ${typeof error}`);
  }
  return { type: 'error', error: internalError() };
}
