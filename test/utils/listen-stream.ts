import { freshId, rpcBody, rpcHeaders } from './mcp';
import { postForStream, type OpenStream } from './sse';

/** Options of {@link openListenStream}. */
export interface ListenStreamOptions {
  /** JSON-RPC id of the request; a fresh one when omitted. */
  id?: number | string;
  /** Extra HTTP headers (the caller's `Authorization`, a partition header). */
  headers?: Record<string, string>;
  /** `clientCapabilities` of the `_meta` envelope; `{}` when omitted. */
  capabilities?: Record<string, unknown>;
}

/**
 * POSTs a 2026-07-28 `subscriptions/listen` for `notifications` to `url` and resolves once the
 * response headers arrive, leaving the stream open (see {@link postForStream}).
 */
export function openListenStream(
  url: URL,
  notifications: Record<string, unknown>,
  options: ListenStreamOptions = {},
): Promise<OpenStream> {
  return postForStream(
    url,
    { ...rpcHeaders('subscriptions/listen'), ...options.headers },
    rpcBody(
      'subscriptions/listen',
      { notifications },
      options.id ?? freshId(),
      options.capabilities ?? {},
    ),
  );
}
