import { STORE_RETRY_AFTER_MS } from '../../kit/errors/store-unavailable';
import { outageOf } from '../../redis/redis-outage';
import { KeyringError } from '../keyring.error';
import type { KeyringFleet } from './keyring-fleet';

/**
 * `fleet`, with Redis away (unreachable, timing out, read-only, out of memory…) thrown as a
 * {@link KeyringError} with `retryAfterMs`, never Redis's own words. The operations are
 * idempotent, so the same call may be made again; a change written before the outage struck
 * reaches the other instances at their next heartbeat.
 * @internal
 */
export function withFleetOutagesAsKeyringErrors(fleet: KeyringFleet): KeyringFleet {
  const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      const unavailable = outageOf(error);
      if (unavailable === undefined) throw error;
      throw new KeyringError(
        `The fleet's keyring in Redis cannot be reached (${unavailable}); try again`,
        STORE_RETRY_AFTER_MS,
      );
    }
  };
  return {
    staged: (key) => guarded(() => fleet.staged(key)),
    activate: (id) => guarded(() => fleet.activate(id)),
    removed: (id) => guarded(() => fleet.removed(id)),
    view: () => guarded(() => fleet.view()),
  };
}
