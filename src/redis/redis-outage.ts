import { loggableFailure } from './bounded-redis-command';

/**
 * Error replies that mean "not now", not "never": a failover under way (`READONLY`, `MASTERDOWN`,
 * `CLUSTERDOWN`, `TRYAGAIN`), a server out of memory (`OOM`), loading its data (`LOADING`), busy
 * with a script (`BUSY`), short of replicas (`NOREPLICAS`) or failing to persist (`MISCONF`).
 * Anything else Redis refuses (`NOPERM`, `WRONGTYPE`, `CROSSSLOT`, a script error) is a
 * configuration or programming error.
 */
const OUTAGE_REPLIES = new Set([
  'OOM',
  'READONLY',
  'CLUSTERDOWN',
  'LOADING',
  'MASTERDOWN',
  'TRYAGAIN',
  'BUSY',
  'NOREPLICAS',
  'MISCONF',
]);

/**
 * Reasons of a store that could not answer now (the module's Redis adapters say them, and an
 * application's store may too): the store is unreachable, too slow, past the deadline of the
 * write, unsure whether an earlier presentation's write went through, or short of replicas.
 */
const OUTAGE_REASONS = new Set(['unavailable', 'timeout', 'late', 'in doubt', 'not replicated']);

/** Whether a store's failure reason (`timeout`, `rejected OOM`, …) is an outage, not a fault. @internal */
export function isOutageReason(reason: string): boolean {
  if (OUTAGE_REASONS.has(reason)) return true;
  return reason.startsWith('rejected ') && OUTAGE_REPLIES.has(reason.slice('rejected '.length));
}

/**
 * The loggable reason of `error` when it says that Redis (or another store) is away for now —
 * unreachable, timing out, read-only after a failover, out of memory, `CLUSTERDOWN`… — so that the
 * caller may be told to retry; `undefined` for anything else (a programming error, a refused
 * configuration), which stays a fault. Never Redis's own words.
 * @internal
 */
export function outageOf(error: unknown): string | undefined {
  const storeReason = (error as { reason?: unknown } | null)?.reason;
  const reason =
    error instanceof Error && typeof storeReason === 'string'
      ? storeReason
      : loggableFailure(error);
  return isOutageReason(reason) ? reason : undefined;
}
