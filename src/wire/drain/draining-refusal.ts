import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';

/** The fixed message of the refusal (docs/errors.md). @internal */
export const DRAINING_MESSAGE = 'Server busy: the server is shutting down';

/** When to send it again: at once on a new connection, which reaches another instance. */
const RETRY_AFTER_MS = 1_000;

/** Bytes of the body kept to read the request's JSON-RPC id; the rest is read and dropped. */
const ID_WINDOW_BYTES = 65_536;

/** Longest the refusal waits for the rest of the body before it answers anyway. */
const BODY_WAIT_MS = 1_000;

/**
 * Answers a request that reached an instance after it stopped taking work, before any of the
 * app's handlers sees it: HTTP 503, `Retry-After`, `Connection: close` and the JSON-RPC error
 * -32000 with `data.retryAfterMs` (the request's id when it is a JSON-RPC request). The body is
 * read first, so the client gets the answer instead of a reset for the bytes it was still
 * sending; nothing of the request runs.
 * @internal
 */
export function refuseWhileDraining(req: IncomingMessage, res: ServerResponse): void {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let overflowed = false;
  let answered = false;
  const answer = (complete: boolean) => {
    if (answered) return;
    answered = true;
    clearTimeout(cutOff);
    const id = complete && !overflowed ? jsonRpcIdOf(Buffer.concat(kept)) : null;
    res.setHeader('Connection', 'close');
    writeJsonRpcHttpError(res, 503, McpErrorCode.ServerBusy, DRAINING_MESSAGE, id, {
      retryAfterMs: RETRY_AFTER_MS,
    });
  };
  // A client that stalls its body is answered all the same; its connection closes with it.
  const cutOff = setTimeout(() => answer(false), BODY_WAIT_MS).unref();
  req.on('data', (chunk: Buffer) => {
    if (overflowed) return;
    keptBytes += chunk.length;
    if (keptBytes > ID_WINDOW_BYTES) {
      overflowed = true;
      kept.length = 0;
    } else kept.push(chunk);
  });
  req.once('end', () => answer(true));
  req.once('error', () => {
    clearTimeout(cutOff);
    res.destroy();
  });
}

/** The id of a single JSON-RPC request, or null for anything else (a notification, a batch, not JSON). */
function jsonRpcIdOf(body: Buffer): unknown {
  if (body.length === 0) return null;
  try {
    const message: unknown = JSON.parse(body.toString('utf8'));
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
    const { jsonrpc, method, id } = message as Record<string, unknown>;
    return jsonrpc === '2.0' && typeof method === 'string' ? id : null;
  } catch {
    return null;
  }
}
