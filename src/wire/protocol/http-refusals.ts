import { McpHttpRefusal } from '../../kit/errors/mcp-http-refusal.error';
import type { HttpExchange } from '../../pipeline/http-exchange';

const refusals = new WeakMap<HttpExchange, McpHttpRefusal>();

/**
 * Runs an SDK request handler's `work` on `exchange`, remembering a refusal it throws whose HTTP
 * answer is not 200 (401, 403 step-up, 429). The SDK turns the error into its JSON-RPC answer and
 * drops the rest, so the transport takes the status and headers from here when it writes that
 * answer ({@link refusalOf}); the fast path gets the error itself.
 * @internal
 */
export async function recordingRefusal<T>(
  exchange: HttpExchange,
  work: (exchange: HttpExchange) => Promise<T> | T,
): Promise<T> {
  try {
    return await work(exchange);
  } catch (error) {
    if (error instanceof McpHttpRefusal) refusals.set(exchange, error);
    throw error;
  }
}

/** The refusal an SDK request handler threw on `exchange`, if any. @internal */
export function refusalOf(exchange: HttpExchange): McpHttpRefusal | undefined {
  return refusals.get(exchange);
}
