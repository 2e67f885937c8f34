import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON-RPC error response with the given HTTP status, unless the response already started.
 * @internal
 */
export function writeJsonRpcHttpError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  data?: unknown,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const validId = typeof id === 'string' || typeof id === 'number' ? id : null;
  const error = data === undefined ? { code, message } : { code, message, data };
  const body = JSON.stringify({ jsonrpc: '2.0', id: validId, error });
  const retryAfterMs = (data as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    // A refusal that says when to retry says it in HTTP too, in whole seconds.
    ...(typeof retryAfterMs === 'number' && {
      'Retry-After': String(Math.ceil(retryAfterMs / 1000)),
    }),
  });
  res.end(body);
}
