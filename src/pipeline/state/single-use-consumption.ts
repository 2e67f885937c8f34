import type { Logger } from '@nestjs/common';
import type { OutageLog } from '../../redis/outage-log';
import { ConsumedStateStoreError } from '../../request-state/stores/one-time/consumed-state-store.error';
import type { ConsumedStateStore } from '../../request-state/stores/one-time/consumed-state-store.interface';
import { storeFailureAnswer } from '../../request-state/stores/store-failure';
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
    // Nothing was consumed (or what may have been is released once the store answers).
    throw refusal(
      call,
      storeFailureAnswer(
        error,
        reason,
        'single-use states',
        `${callSite(call)}: single-use state could not be recorded`,
        logger,
        outage,
      ),
    );
  }
  outage.answered();
  return first === true;
}
