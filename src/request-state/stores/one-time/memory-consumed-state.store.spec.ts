import { ConsumedStateStoreError } from './consumed-state-store.error';
import { MemoryConsumedStateStore } from './memory-consumed-state.store';

describe('MemoryConsumedStateStore', () => {
  let now: number;
  const stores: MemoryConsumedStateStore[] = [];
  const storeWith = (maxEntries?: number) => {
    const store = new MemoryConsumedStateStore({ maxEntries, now: () => now });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    now = 1_000_000;
  });
  afterAll(() => stores.forEach((store) => store.close()));

  it('accepts the first presentation of an id and refuses every later one until it expires', async () => {
    const store = storeWith();
    await expect(store.consume('a', now + 1_000)).resolves.toBe(true);
    await expect(store.consume('a', now + 1_000)).resolves.toBe(false);
    now += 999;
    await expect(store.consume('a', now + 1)).resolves.toBe(false);
    await expect(store.consume('b', now + 1_000)).resolves.toBe(true);
  });

  it('refuses an id presented at or after its expiry, recording nothing', async () => {
    const store = storeWith();
    await expect(store.consume('a', now)).resolves.toBe(false);
    await expect(store.consume('b', now - 1)).resolves.toBe(false);
    expect(store.size).toBe(0);
  });

  it('lets exactly one of many same-tick presentations of one id win', async () => {
    const store = storeWith();
    const results = await Promise.all(
      Array.from({ length: 100 }, () => store.consume('same', now + 1_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(store.size).toBe(1);
  });

  it('drops expired entries as new ones arrive and on a sweep', async () => {
    const store = storeWith();
    for (let i = 0; i < 10; i++) await store.consume(`old-${i}`, now + 100);
    await store.consume('long', now + 10_000);
    now += 100;
    await store.consume('new-1', now + 100);
    expect(store.size).toBeLessThan(12);
    expect(store.sweep()).toBeGreaterThan(0);
    expect(store.size).toBe(2);
    // An expired id may be recorded again: its state could no longer open anyway.
    await expect(store.consume('old-1', now + 100)).resolves.toBe(true);
  });

  it('refuses with ConsumedStateStoreError when full of unexpired entries, never accepting', async () => {
    const store = storeWith(3);
    for (const id of ['a', 'b', 'c'])
      await expect(store.consume(id, now + 1_000)).resolves.toBe(true);
    const error: unknown = await store.consume('d', now + 1_000).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ConsumedStateStoreError);
    expect((error as ConsumedStateStoreError).reason).toBe('full');
    // A repeat is still answered from the record while full.
    await expect(store.consume('a', now + 1_000)).resolves.toBe(false);
    expect(store.size).toBe(3);
  });

  it('makes room once held entries expire, even those not at the front', async () => {
    const store = storeWith(3);
    await store.consume('long-1', now + 10_000);
    await store.consume('long-2', now + 10_000);
    await store.consume('short', now + 10);
    await expect(store.consume('d', now + 1_000)).rejects.toBeInstanceOf(ConsumedStateStoreError);
    now += 10;
    await expect(store.consume('d', now + 1_000)).resolves.toBe(true);
    await expect(store.consume('e', now + 1_000)).rejects.toBeInstanceOf(ConsumedStateStoreError);
  });

  it('does not rescan a full store before its earliest entry can expire', async () => {
    const store = storeWith(2);
    await store.consume('a', now + 1_000);
    await store.consume('b', now + 2_000);
    const sweep = jest.spyOn(store, 'sweep');
    for (let i = 0; i < 5; i++) await store.consume(`x-${i}`, now + 1_000).catch(() => undefined);
    expect(sweep).toHaveBeenCalledTimes(1);
    now += 1_000;
    await expect(store.consume('c', now + 1_000)).resolves.toBe(true);
  });

  it('sweeps on an unref’d timer', async () => {
    jest.useFakeTimers();
    try {
      const store = new MemoryConsumedStateStore({ sweepIntervalMs: 50, now: () => now });
      stores.push(store);
      await store.consume('a', now + 10);
      await store.consume('b', now + 10_000);
      now += 10;
      jest.advanceTimersByTime(50);
      expect(store.size).toBe(1);
      store.close();
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses a maxEntries that is not a positive integer', () => {
    expect(() => new MemoryConsumedStateStore({ maxEntries: 0 })).toThrow(RangeError);
  });
});
