import type { Logger } from '@nestjs/common';
import type { ProtocolError } from '@modelcontextprotocol/server';
import { clip } from '../../kit/clip';
import { internalError } from '../../kit/errors/internal-error';
import { serverBusy } from '../../kit/errors/server-busy';
import { storeUnavailable } from '../../kit/errors/store-unavailable';
import type { OutageLog } from '../../redis/outage-log';
import { outageOf } from '../../redis/redis-outage';

/**
 * The answer to a failure of a request-state store (the single-use store, the state handle
 * repository), for the caller to throw. No room (`full`, or `share`: the caller's) is not a
 * fault: `-32000 Server busy` naming what is short, with the store's retry hint, logged as a
 * warning. An outage (the store unreachable, timing out, read-only, out of memory…) is the
 * retryable `-32000` of a store that is away, logged once per outage. Anything else is a fault:
 * logged, answered a bare `-32603`.
 * @internal
 */
export function storeFailureAnswer(
  error: unknown,
  /** The store error's reason, or the caller's word for a failure that is no store error. */
  reason: string,
  /** What the store holds, as the busy answer names it (`single-use states`). */
  held: string,
  /** What could not be done, for the log (`<call site>: single-use state could not be recorded`). */
  failed: string,
  logger: Pick<Logger, 'warn' | 'error'>,
  outage: OutageLog,
): ProtocolError {
  if (reason === 'full' || reason === 'share') {
    logger.warn(`${failed} (${reason})`);
    return serverBusy(
      reason === 'share'
        ? `Server busy: too many ${held} for this caller`
        : `Server busy: too many ${held}`,
      (error as { retryAfterMs?: number }).retryAfterMs,
    );
  }
  const unavailable = outageOf(error);
  if (unavailable !== undefined) {
    outage.failed(unavailable);
    return storeUnavailable();
  }
  logger.error(`${failed} (${clip(reason)})`);
  return internalError();
}
