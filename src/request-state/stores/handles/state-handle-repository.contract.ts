import type { StateHandleRecord, StateHandleRepository } from './state-handle-repository.interface';
import { setTimeout as sleep } from 'node:timers/promises';
import { testRunnerGlobals } from '../../../kit/test-runner-globals';
import {
  boundedStateHandleRepositoryCases,
  type StateHandleRepositoryCapacity,
} from './state-handle-repository-capacity.contract';
import { handle, type StateHandleRepositorySubject } from './state-handle-subject';

/**
 * What every `StateHandleRepository` must do, whatever it stores records in: the suite the memory
 * and Redis implementations (and any application's own) run. With `createBounded` (a repository
 * with a capacity of its own, as the module's are), the fair-share rules too.
 * @publicApi
 */
export function describeStateHandleRepositoryContract(
  name: string,
  create: () => Promise<StateHandleRepositorySubject>,
  createBounded?: (
    capacity: StateHandleRepositoryCapacity,
  ) => Promise<StateHandleRepositorySubject>,
): void {
  const { describe } = testRunnerGlobals();
  describe(`${name} (StateHandleRepository contract)`, () => stateHandleRepositoryCases(create));
  if (createBounded)
    describe(`${name} (StateHandleRepository contract: capacity and fair shares)`, () =>
      boundedStateHandleRepositoryCases(createBounded));
}

function stateHandleRepositoryCases(create: () => Promise<StateHandleRepositorySubject>): void {
  const { it, beforeEach, afterEach, expect } = testRunnerGlobals();
  let subject: StateHandleRepositorySubject;
  let repository: StateHandleRepository;

  beforeEach(async () => {
    subject = await create();
    repository = subject.repository;
  });
  afterEach(() => subject.close());

  const record = (over: Partial<StateHandleRecord> = {}): StateHandleRecord => ({
    binding: 'alice/tools/call/approve',
    data: '{"amount":"120.50"}',
    expiresAt: Date.now() + 60_000,
    round: 1,
    ...over,
  });

  it('redeems a stored handle once, moving its record to the replacement', async () => {
    const first = handle();
    const stored = record();
    await repository.put(first, stored);
    const second = handle();
    expect(await repository.redeem(first, stored.binding, second)).toEqual(stored);
    expect(await repository.redeem(first, stored.binding, handle())).toBeUndefined();
    const third = handle();
    expect(await repository.redeem(second, stored.binding, third)).toEqual(stored);
    expect(await repository.redeem(second, stored.binding, handle())).toBeUndefined();
  });

  it('rotates round after round: the data written under the replacement is what the next redemption returns', async () => {
    let current = handle();
    await repository.put(current, record({ data: '"round 1"', round: 1 }));
    for (let round = 2; round <= 4; round++) {
      const next = handle();
      const redeemed = await repository.redeem(current, record().binding, next);
      expect(redeemed?.data).toBe(`"round ${round - 1}"`);
      await repository.put(next, { ...redeemed!, data: `"round ${round}"`, round });
      current = next;
    }
    expect(await repository.redeem(current, record().binding, handle())).toMatchObject({
      data: '"round 4"',
      round: 4,
    });
  });

  it('refuses another binding without consuming: the rightful caller still redeems', async () => {
    const stored = record();
    const first = handle();
    await repository.put(first, stored);
    for (const foreign of ['mallory/tools/call/approve', 'alice/tools/call/delete', ''])
      expect(await repository.redeem(first, foreign, handle())).toBeUndefined();
    expect(await repository.redeem(first, stored.binding, handle())).toEqual(stored);
  });

  it('answers undefined for a handle it never stored, and creates nothing', async () => {
    const replacement = handle();
    expect(await repository.redeem(handle(), record().binding, replacement)).toBeUndefined();
    expect(await repository.redeem(replacement, record().binding, handle())).toBeUndefined();
  });

  it('stops redeeming at the expiry, which the replacement keeps', async () => {
    const stored = record({ expiresAt: Date.now() + 400 });
    const first = handle();
    await repository.put(first, stored);
    const second = handle();
    expect(await repository.redeem(first, stored.binding, second)).toEqual(stored);
    await sleep(stored.expiresAt - Date.now() + 50);
    expect(await repository.redeem(second, stored.binding, handle())).toBeUndefined();
  });

  it('never stores a record that is already expired', async () => {
    const first = handle();
    await repository.put(first, record({ expiresAt: Date.now() - 1 }));
    expect(await repository.redeem(first, record().binding, handle())).toBeUndefined();
  });

  it('replaces what a handle holds on a second put', async () => {
    const first = handle();
    await repository.put(first, record({ data: '"old"' }));
    await repository.put(first, record({ data: '"new"', round: 2 }));
    expect(await repository.redeem(first, record().binding, handle())).toMatchObject({
      data: '"new"',
      round: 2,
    });
  });

  it('forgets a deleted handle', async () => {
    const first = handle();
    await repository.put(first, record());
    await repository.delete(first);
    await repository.delete(first);
    expect(await repository.redeem(first, record().binding, handle())).toBeUndefined();
  });

  it('lets exactly one of 50 concurrent redemptions of one handle win', async () => {
    const stored = record();
    const first = handle();
    await repository.put(first, stored);
    const replacements = Array.from({ length: 50 }, handle);
    const outcomes = await Promise.all(
      replacements.map((replacement) => repository.redeem(first, stored.binding, replacement)),
    );
    const winners = outcomes.flatMap((outcome, index) => (outcome ? [index] : []));
    expect(winners).toHaveLength(1);
    expect(outcomes[winners[0]]).toEqual(stored);
    // Only the winner's replacement holds the record.
    const next = await Promise.all(
      replacements.map((replacement) => repository.redeem(replacement, stored.binding, handle())),
    );
    expect(next.filter(Boolean)).toHaveLength(1);
    expect(next[winners[0]]).toEqual(stored);
  });

  it('lets no foreign redemption win among 50 concurrent ones, and exactly one rightful one', async () => {
    const stored = record();
    const first = handle();
    await repository.put(first, stored);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        repository.redeem(first, index % 2 ? stored.binding : 'mallory', handle()),
      ),
    );
    expect(outcomes.filter((outcome, index) => outcome && index % 2 === 0)).toHaveLength(0);
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });
}
