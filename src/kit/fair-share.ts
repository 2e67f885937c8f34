/**
 * How much of a store one partition (one caller) may take: at most `perPartition`, and the store
 * at most `capacity` in all. Counted in records or in bytes, as the store decides.
 * @internal
 */
export interface ShareLimits {
  readonly capacity: number;
  readonly perPartition: number;
}

/**
 * The top part of a store's capacity kept for the partitions that hold little: once the store is
 * past `1 - NEAR_FULL_FRACTION` of its capacity, the most a partition may hold shrinks linearly
 * from `perPartition` to nothing at full, so the heaviest partitions are refused first and a
 * partition that holds nothing still finds room.
 *
 * With N partitions that each take all they can, the store settles where each holds what the
 * shrunken limit allows: at `capacity × k / (1 + k)` with `k = N × perPartition / (capacity ×
 * NEAR_FULL_FRACTION)`, leaving `capacity / (1 + k)` free — e.g. 100 partitions at 1 % each leave
 * 20 % of the store to everyone else.
 * @internal
 */
export const NEAR_FULL_FRACTION = 0.25;

/**
 * Why `weight` more is refused: the partition's own limit (`partition`), the store's shrunken
 * share for heavy partitions when it is nearly full (`share`), or the store's capacity (`store`).
 * @internal
 */
export type ShareRefusal = 'partition' | 'share' | 'store';

/** The most a partition may hold while the store holds `total`. @internal */
export function partitionLimit(limits: ShareLimits, total: number): number {
  const { capacity, perPartition } = limits;
  const nearFull = capacity * (1 - NEAR_FULL_FRACTION);
  if (total <= nearFull) return perPartition;
  return Math.max(0, (perPartition * (capacity - total)) / (capacity * NEAR_FULL_FRACTION));
}

/**
 * Whether a partition holding `held` of a store holding `total` may take `weight` more, and if
 * not, why. A partition that holds nothing is admitted whenever the store has room: a quiet caller
 * is never refused for the others' sake while anything is left.
 * @internal
 */
export function shareRefusal(
  limits: ShareLimits,
  held: number,
  total: number,
  weight: number,
): ShareRefusal | undefined {
  if (total + weight > limits.capacity) return 'store';
  if (held + weight > limits.perPartition) return 'partition';
  if (held > 0 && held + weight > partitionLimit(limits, total)) return 'share';
  return undefined;
}

/**
 * The same rule, as Lua for the Redis stores' scripts (one atomic check and write): defines
 * `share_refusal(capacity, per_partition, held, total, weight)` answering `'partition'`,
 * `'share'`, `'store'` or `false`. Kept next to {@link shareRefusal} so the two cannot drift; the
 * store contract suites check both against the same cases.
 * @internal
 */
export const SHARE_REFUSAL_LUA = `
local function share_refusal(capacity, per_partition, held, total, weight)
  if total + weight > capacity then return 'store' end
  if held + weight > per_partition then return 'partition' end
  if held > 0 then
    local near_full = capacity * (1 - ${NEAR_FULL_FRACTION})
    local limit = per_partition
    if total > near_full then
      limit = per_partition * (capacity - total) / (capacity * ${NEAR_FULL_FRACTION})
    end
    if held + weight > limit then return 'share' end
  end
  return false
end`;

/** Shortest retry hint a refusal gives: sooner is never useful. @internal */
export const MIN_RETRY_AFTER_MS = 1_000;

/** A retry hint from the time the first record that would free room expires. @internal */
export function retryAfterMs(firstExpiryAt: number | undefined, now: number): number {
  if (firstExpiryAt === undefined || !Number.isFinite(firstExpiryAt)) return MIN_RETRY_AFTER_MS;
  return Math.max(MIN_RETRY_AFTER_MS, Math.ceil(firstExpiryAt - now));
}
