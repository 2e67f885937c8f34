import type { ProtocolError } from '@modelcontextprotocol/server';
import { serverBusy } from './server-busy';

/** When a client is told to try again after a store (Redis) did not answer. @internal */
export const STORE_RETRY_AFTER_MS = 1_000;

/**
 * The -32000 a request gets when a store it needs could not answer now — Redis unreachable, timing
 * out, read-only during a failover, out of memory, `CLUSTERDOWN` — and nothing was changed, so the
 * same request may be sent again (docs/errors.md, "Server busy"). Redis's own words never reach
 * the client; the reason is logged once per outage.
 * @internal
 */
export function storeUnavailable(): ProtocolError {
  return serverBusy('Server busy: the store is unavailable', STORE_RETRY_AFTER_MS);
}
