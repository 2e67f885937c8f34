import { StateHandleRepositoryError } from './state-handle-repository.error';
import type { StateHandleRecord } from './state-handle-repository.interface';
import { testRunnerGlobals } from '../../../kit/test-runner-globals';
import { handle, type StateHandleRepositorySubject } from './state-handle-subject';
import { contractRejection } from '../../../kit/contract-rejection';
import { floodInTurns } from '../../../kit/contract-flood';

/** The capacity of a repository made for the bounded cases. @publicApi */
export interface StateHandleRepositoryCapacity {
  readonly maxEntries: number;
  readonly maxEntriesPerOwner: number;
  readonly maxBytes: number;
}

/**
 * The fair-share rules of a repository with a capacity of its own (the module's): `create` makes
 * one with the given capacity and nothing in it. Records name their owner (`owner`); a new flow
 * past the capacity is refused `full`, one whose owner holds its share `share` — its own limit, or
 * less while the repository is nearly full — each with a retry hint; a flow already held keeps
 * going.
 * @internal
 */
export function boundedStateHandleRepositoryCases(
  create: (capacity: StateHandleRepositoryCapacity) => Promise<StateHandleRepositorySubject>,
): void {
  const { it, afterEach, expect } = testRunnerGlobals();
  const subjects: StateHandleRepositorySubject[] = [];
  afterEach(async () => {
    for (const subject of subjects.splice(0)) await subject.close();
  });
  const bounded = async (capacity: StateHandleRepositoryCapacity) => {
    const subject = await create(capacity);
    subjects.push(subject);
    return subject.repository;
  };
  const owned = (owner: string, over: Partial<StateHandleRecord> = {}): StateHandleRecord => ({
    binding: `${owner}/tools/call/approve`,
    data: '{"amount":"120.50"}',
    expiresAt: Date.now() + 60_000,
    round: 1,
    owner,
    ...over,
  });
  const refused = (attempt: Promise<unknown>) =>
    contractRejection(attempt, StateHandleRepositoryError);

  it('refuses a new flow when full ("full", with a retry hint) but keeps every flow it holds going', async () => {
    const repository = await bounded({ maxEntries: 2, maxEntriesPerOwner: 2, maxBytes: 1 << 20 });
    const [a, b] = [handle(), handle()];
    await repository.put(a, owned('alice'));
    await repository.put(b, owned('bob'));
    const full = await refused(repository.put(handle(), owned('carol')));
    expect(full.reason).toBe('full');
    expect(full.retryAfterMs).toBeGreaterThanOrEqual(1_000);
    // Alice's flow moves on: redeemed, saved under the replacement, redeemed again.
    const next = handle();
    const redeemed = await repository.redeem(a, owned('alice').binding, next);
    await repository.put(next, { ...(redeemed as StateHandleRecord), round: 2 });
    expect(await repository.redeem(next, owned('alice').binding, handle())).toMatchObject({
      round: 2,
    });
    // A finished flow makes room.
    await repository.delete(b);
    await expect(repository.put(handle(), owned('carol'))).resolves.toBeUndefined();
  });

  it('stops a flood from many owners short of full, so a quiet owner still starts a flow', async () => {
    const repository = await bounded({ maxEntries: 40, maxEntriesPerOwner: 10, maxBytes: 1 << 20 });
    const held = await floodInTurns((owner) => repository.put(handle(), owned(owner)), {
      reason: 'share',
    });
    const total = [...held.values()].reduce((sum, count) => sum + count, 0);
    expect(total).toBeLessThan(40);
    expect(Math.max(...held.values())).toBeLessThanOrEqual(10);
    await expect(repository.put(handle(), owned('quiet'))).resolves.toBeUndefined();
  });

  it('holds an owner to its share of the bytes: the same fraction as of the records', async () => {
    // 2 of 10 records, so 4 kB of 20 kB: a second 2.5 kB record is past it, though two would count.
    const repository = await bounded({ maxEntries: 10, maxEntriesPerOwner: 2, maxBytes: 20_000 });
    const big = (owner: string) => owned(owner, { data: JSON.stringify('x'.repeat(2_500)) });
    await repository.put(handle(), big('heavy'));
    expect((await refused(repository.put(handle(), big('heavy')))).reason).toBe('share');
    await expect(repository.put(handle(), big('light'))).resolves.toBeUndefined();
  });
}
