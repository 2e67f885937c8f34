import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../../kit/errors/mcp-error-codes';
import { McpHttpRefusal } from '../../../kit/errors/mcp-http-refusal.error';
import { writeJsonRpcHttpError } from '../../../kit/json-rpc-http-error';
import type { ProtectedResource } from '../../../extension-api';

/**
 * The HTTP status and headers of a refusal answered before anything of a session's response was
 * sent: a guard's or the resource server's 401 with its `WWW-Authenticate: Bearer` challenge, a 403
 * (a step-up's challenge with it), a 429 or 503 with `Retry-After`. `undefined` for an error that is
 * no refusal of the caller (answered as the call's result).
 * @internal
 */
export function refusalStatusOf(
  error: unknown,
  resource: ProtectedResource,
  req: IncomingMessage,
): { status: number; headers: Record<string, string> } | undefined {
  if (error instanceof McpHttpRefusal)
    return { status: error.httpStatus, headers: resource.headersOf(error, req) };
  if (error instanceof ProtocolError && error.code === McpErrorCode.Forbidden)
    return { status: 403, headers: {} };
  return undefined;
}

/**
 * Answers a refusal of a session request's caller (its guards ran before the session was found or
 * opened) with its HTTP status; `false` when `error` is no such refusal.
 * @internal
 */
export function answerCallerRefusal(
  error: unknown,
  resource: ProtectedResource,
  req: IncomingMessage,
  res: ServerResponse,
  id: unknown,
): boolean {
  const refusal = refusalStatusOf(error, resource, req);
  if (!refusal || !(error instanceof ProtocolError)) return false;
  for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  writeJsonRpcHttpError(res, refusal.status, error.code, error.message, id, error.data);
  return true;
}
