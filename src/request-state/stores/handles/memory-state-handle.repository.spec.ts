import { MemoryStateHandleRepository } from './memory-state-handle.repository';
import { StateHandleRepositoryError } from './state-handle-repository.error';
import type { StateHandleRecord } from './state-handle-repository.interface';

describe('MemoryStateHandleRepository', () => {
  let now = 1_000;
  const clock = () => now;
  const record = (expiresAt: number): StateHandleRecord => ({
    binding: 'b',
    data: '1',
    expiresAt,
    round: 1,
  });
  let repository: MemoryStateHandleRepository;

  beforeEach(() => {
    now = 1_000;
    repository = new MemoryStateHandleRepository({ maxEntries: 2, now: clock });
  });
  afterEach(() => repository.close());

  it('refuses a new handle when full of unexpired records, but still replaces an existing one', async () => {
    await repository.put('h1', record(5_000));
    await repository.put('h2', record(5_000));
    await expect(repository.put('h3', record(5_000))).rejects.toEqual(
      new StateHandleRepositoryError('full'),
    );
    await repository.put('h1', { ...record(5_000), data: '2' });
    expect(repository.size).toBe(2);
    expect(await repository.redeem('h1', 'b', 'h4')).toMatchObject({ data: '2' });
  });

  it('makes room by dropping expired records when full', async () => {
    await repository.put('h1', record(2_000));
    await repository.put('h2', record(5_000));
    now = 2_000;
    await repository.put('h3', record(5_000));
    expect(repository.size).toBe(2);
    expect(await repository.redeem('h1', 'b', 'x')).toBeUndefined();
    expect(await repository.redeem('h3', 'b', 'y')).toMatchObject({ expiresAt: 5_000 });
  });

  it('does not redeem at the expiry instant, and drops the record it found expired', async () => {
    await repository.put('h1', record(2_000));
    now = 2_000;
    expect(await repository.redeem('h1', 'b', 'h2')).toBeUndefined();
    expect(repository.size).toBe(0);
  });

  it('keeps an expired record of another binding untouched until swept', async () => {
    await repository.put('h1', record(2_000));
    now = 3_000;
    expect(await repository.redeem('h1', 'other', 'h2')).toBeUndefined();
    expect(repository.size).toBe(1);
    expect(repository.sweep()).toBe(1);
    expect(repository.size).toBe(0);
  });

  it('hands out copies: changing a redeemed record changes nothing stored', async () => {
    await repository.put('h1', record(5_000));
    const redeemed = (await repository.redeem('h1', 'b', 'h2')) as { data: string };
    redeemed.data = 'changed';
    expect(await repository.redeem('h2', 'b', 'h3')).toMatchObject({ data: '1' });
  });

  it('rejects a bound that is not a positive integer', () => {
    expect(() => new MemoryStateHandleRepository({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new MemoryStateHandleRepository({ maxEntries: 1.5 })).toThrow(RangeError);
  });
});
