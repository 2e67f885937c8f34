import type { ShareLimits } from '../../../kit/fair-share';

/**
 * A handle repository's capacity as given: records in all, records per owner, bytes in all.
 * @internal
 */
export interface HandleCapacity {
  readonly maxEntries: number;
  readonly maxEntriesPerOwner: number;
  readonly maxBytes: number;
}

/**
 * The fair-share limits of a handle repository, by records and by bytes: an owner's share of the
 * bytes is its share of the records. Each bound must be a positive integer.
 * @internal
 */
export function handleShares(capacity: HandleCapacity): {
  readonly count: ShareLimits;
  readonly bytes: ShareLimits;
} {
  for (const [name, value] of Object.entries(capacity))
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`${name} must be a positive integer`);
  const { maxEntries, maxEntriesPerOwner, maxBytes } = capacity;
  const count = { capacity: maxEntries, perPartition: Math.min(maxEntriesPerOwner, maxEntries) };
  return {
    count,
    bytes: {
      capacity: maxBytes,
      perPartition: Math.ceil((maxBytes * count.perPartition) / maxEntries),
    },
  };
}
