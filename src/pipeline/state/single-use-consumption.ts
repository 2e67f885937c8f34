import type { Logger } from '@nestjs/common';
import { internalError } from '../../kit/errors/internal-error';
import { serverBusy } from '../../kit/errors/server-busy';
import { storeUnavailable } from '../../kit/errors/store-unavailable';
import type { OutageLog } from '../../redis/outage-log';
import { outageOf } from '../../redis/redis-outage';
import { ConsumedStateStoreError } from '../../request-state/stores/one-time/consumed-state-store.error';
import type { ConsumedStateStore } from '../../request-state/stores/one-time/consumed-state-store.interface';
import { clip } from '../../kit/clip';
import { sha256Base64Url } from '../../kit/sha256';
import { refusal } from '../library-interceptor';
import type { OperationCall } from '../operation-call';
import { callSite } from './call-state-binder';

/**
 * Accepts a single-use state once: answers whether this is its first presentation (a later one,
 * at any time before its expiry, is `false`). A store with no room, or one that cannot answer now
 * (an outage: unreachable, timing out, read-only, out of memory…), answers -32000 with a retry
 * hint, nothing consumed; any other failure is a fault, a bare -32603. The reason is logged (an
 * outage once, however many calls it refuses).
 * @internal
 */
export async function consumeSingleUse(
  call: OperationCall,
  store: ConsumedStateStore,
  state: { readonly raw: string; readonly expiresAt: number },
  partition: string,
  logger: Logger,
  outage: OutageLog,
): Promise<boolean> {
  let first: boolean;
  try {
    // Shares are by caller: the store sees a digest of the partition, never the partition.
    first = await store.consume(
      sha256Base64Url(state.raw),
      state.expiresAt,
      sha256Base64Url(partition),
    );
  } catch (error) {
    const reason = error instanceof ConsumedStateStoreError ? error.reason : 'store_failure';
    if (reason === 'full' || reason === 'share') {
      // No room is not a fault, and nothing was consumed: the client may retry this state.
      logger.warn(`${callSite(call)}: single-use state could not be recorded (${reason})`);
      throw refusal(
        call,
        serverBusy(
          reason === 'share'
            ? 'Server busy: too many single-use states for this caller'
            : 'Server busy: too many single-use states',
          (error as ConsumedStateStoreError).retryAfterMs,
        ),
      );
    }
    const unavailable = outageOf(error);
    if (unavailable !== undefined) {
      // Nothing was consumed (or what may have been is released once the store answers).
      outage.failed(unavailable);
      throw refusal(call, storeUnavailable());
    }
    logger.error(`${callSite(call)}: single-use state could not be recorded (${clip(reason)})`);
    throw refusal(call, internalError());
  }
  outage.answered();
  return first === true;
}
