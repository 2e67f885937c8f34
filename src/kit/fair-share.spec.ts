import {
  MIN_RETRY_AFTER_MS,
  partitionLimit,
  retryAfterMs,
  shareRefusal,
  type ShareLimits,
} from './fair-share';

const LIMITS: ShareLimits = { capacity: 10_000, perPartition: 100 };

/** Every partition takes one more until refused; answers what each holds and the total. */
function flood(limits: ShareLimits, partitions: number): { held: number[]; total: number } {
  const held = new Array<number>(partitions).fill(0);
  let total = 0;
  for (let progress = true; progress;) {
    progress = false;
    for (let p = 0; p < partitions; p++) {
      if (shareRefusal(limits, held[p], total, 1) !== undefined) continue;
      held[p]++;
      total++;
      progress = true;
    }
  }
  return { held, total };
}

describe('fair shares', () => {
  it('holds a partition to its own limit while the store is far from full', () => {
    expect(shareRefusal(LIMITS, 99, 500, 1)).toBeUndefined();
    expect(shareRefusal(LIMITS, 100, 500, 1)).toBe('partition');
  });

  it('refuses everyone once the store is full', () => {
    expect(shareRefusal(LIMITS, 0, 10_000, 1)).toBe('store');
    expect(shareRefusal(LIMITS, 0, 9_999, 2)).toBe('store');
  });

  it('shrinks the limit of partitions that hold something as the store nears full', () => {
    expect(partitionLimit(LIMITS, 7_500)).toBe(100);
    expect(partitionLimit(LIMITS, 8_750)).toBe(50);
    expect(partitionLimit(LIMITS, 10_000)).toBe(0);
    expect(shareRefusal(LIMITS, 50, 8_750, 1)).toBe('share');
    expect(shareRefusal(LIMITS, 48, 8_750, 1)).toBeUndefined();
  });

  it('always admits a partition that holds nothing while there is room', () => {
    expect(shareRefusal(LIMITS, 0, 9_999, 1)).toBeUndefined();
  });

  it.each([
    [100, 8_000],
    [1_000, 9_756],
  ])(
    'a flood from %i partitions settles below full (at %i), so a quiet one still gets in',
    (partitions, settles) => {
      const { held, total } = flood(LIMITS, partitions);
      expect(Math.abs(total - settles)).toBeLessThanOrEqual(partitions);
      expect(Math.max(...held)).toBeLessThanOrEqual(LIMITS.perPartition);
      // Nobody took more than a partition's share of what the others took.
      expect(Math.max(...held) - Math.min(...held)).toBeLessThanOrEqual(1);
      expect(shareRefusal(LIMITS, 0, total, 1)).toBeUndefined();
      // The flooders themselves are refused: they are the heaviest.
      expect(shareRefusal(LIMITS, held[0], total, 1)).not.toBeUndefined();
    },
  );

  it('counts bytes the same way (weights above one)', () => {
    const bytes: ShareLimits = { capacity: 1_000_000, perPartition: 100_000 };
    expect(shareRefusal(bytes, 0, 0, 100_001)).toBe('partition');
    expect(shareRefusal(bytes, 60_000, 900_000, 10_000)).toBe('share');
    expect(shareRefusal(bytes, 0, 900_000, 10_000)).toBeUndefined();
  });

  it('hints a retry when the first record expires, at least a second ahead', () => {
    expect(retryAfterMs(10_000, 1_000)).toBe(9_000);
    expect(retryAfterMs(1_200, 1_000)).toBe(MIN_RETRY_AFTER_MS);
    expect(retryAfterMs(undefined, 1_000)).toBe(MIN_RETRY_AFTER_MS);
  });
});
