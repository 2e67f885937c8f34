import { ConsumedStateStoreError } from './consumed-state-store.error';
import type { ConsumedStateStore } from './consumed-state-store.interface';
import { setTimeout as sleep } from 'node:timers/promises';
import { testRunnerGlobals } from '../../../kit/test-runner-globals';
import { contractRejection } from '../../../kit/contract-rejection';
import { floodInTurns } from '../../../kit/contract-flood';

/** One store under test, fresh for each test, and the means to make it fail. @publicApi */
export interface ConsumedStateStoreSubject {
  readonly store: ConsumedStateStore;
  /** Makes the store unable to record a presentation (full, unreachable…). */
  breakIt(): Promise<void>;
  /** Undoes {@link breakIt}: the store records again, without being recreated. */
  repair(): Promise<void>;
  close(): Promise<void>;
}

const LATER = () => Date.now() + 60_000;

/** Ids taken by every contract run in this process: two subjects never present the same one. */
let idsTaken = 0;

/**
 * The behaviour every {@link ConsumedStateStore} must have, run against each implementation:
 * first presentation wins, atomically under concurrency, until the state's expiry and no longer,
 * per id; a store that cannot record refuses quickly and never accepts. With `createBounded`
 * (a store with a capacity of its own, as the module's are), the fair-share rules too.
 * @publicApi
 */
export function describeConsumedStateStoreContract(
  name: string,
  createSubject: () => Promise<ConsumedStateStoreSubject>,
  createBounded?: (
    capacity: ConsumedStateCapacity,
  ) => Promise<{ store: ConsumedStateStore; close(): Promise<void> }>,
): void {
  if (createBounded) describeBoundedConsumedStateStoreContract(name, createBounded);
  const { describe, it, beforeEach, afterEach, expect } = testRunnerGlobals();
  describe(`ConsumedStateStore contract: ${name}`, () => {
    let subject: ConsumedStateStoreSubject;
    /** An id no other test of this run used (subjects may share one server, and its data). */
    const id = (label: string) => `${label}-${process.pid}-${++idsTaken}`;

    beforeEach(async () => {
      subject = await createSubject();
    });

    afterEach(async () => {
      await subject.close();
    });

    it('accepts the first presentation of an id and refuses every later one', async () => {
      const state = id('once');
      const expiresAt = LATER();
      expect(await subject.store.consume(state, expiresAt)).toBe(true);
      expect(await subject.store.consume(state, expiresAt)).toBe(false);
      expect(await subject.store.consume(state, expiresAt)).toBe(false);
    });

    it('accepts exactly one of 50 concurrent presentations of one id', async () => {
      const state = id('race');
      const expiresAt = LATER();
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => subject.store.consume(state, expiresAt)),
      );
      expect(answers.filter((answer) => answer === true)).toHaveLength(1);
      expect(answers.filter((answer) => answer === false)).toHaveLength(49);
    });

    it('records an id once through record() (where it has one) and consume() alike', async () => {
      const { store } = subject;
      // A store without record() is asked through consume(), as the module does.
      const record = (state: string, at: number) =>
        store.record ? store.record(state, at) : store.consume(state, at);
      const state = id('record');
      const expiresAt = LATER();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, at) =>
          at % 2 === 0 ? record(state, expiresAt) : store.consume(state, expiresAt),
        ),
      );
      expect(answers.filter((answer) => answer === true)).toHaveLength(1);
      expect(await record(state, expiresAt)).toBe(false);
      expect(await store.consume(state, expiresAt)).toBe(false);
      const fresh = id('record-fresh');
      expect(await record(fresh, expiresAt)).toBe(true);
      expect(await store.consume(fresh, expiresAt)).toBe(false);
      expect(await record(fresh, expiresAt)).toBe(false);
    });

    it('accepts 50 concurrent presentations of 50 different ids', async () => {
      const expiresAt = LATER();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          subject.store.consume(id(`many${index}`), expiresAt),
        ),
      );
      expect(answers.every((answer) => answer === true)).toBe(true);
    });

    it('keeps ids apart, whatever characters they hold', async () => {
      const ids = [
        id('a'),
        id('b'),
        '__proto__',
        'constructor',
        `*${id('glob')}*`,
        `x:${id('colon')}`,
        `ü-${id('utf8')}`,
      ];
      const expiresAt = LATER();
      for (const state of ids) expect(await subject.store.consume(state, expiresAt)).toBe(true);
      for (const state of ids) expect(await subject.store.consume(state, expiresAt)).toBe(false);
    });

    it('refuses a presentation at or after its expiry and records nothing for it', async () => {
      const state = id('late');
      expect(await subject.store.consume(state, Date.now() - 1)).toBe(false);
      expect(await subject.store.consume(state, Date.now() - 60_000)).toBe(false);
      expect(await subject.store.consume(state, LATER())).toBe(true);
    });

    it('keeps a record until its expiry and no longer', async () => {
      const state = id('expiring');
      const expiresAt = Date.now() + 300;
      expect(await subject.store.consume(state, expiresAt)).toBe(true);
      expect(await subject.store.consume(state, expiresAt)).toBe(false);
      await sleep(450);
      // Only reachable with a later expiry (a real state's is fixed): the old record is gone.
      expect(await subject.store.consume(state, LATER())).toBe(true);
    });

    it('refuses quickly with ConsumedStateStoreError, never accepting, when it cannot record; works again once repaired', async () => {
      const recorded = id('before');
      expect(await subject.store.consume(recorded, LATER())).toBe(true);
      await subject.breakIt();
      const fresh = id('during');
      // Settled while still broken: a store that waited for its backend would hang here until
      // the test's timeout, since nothing repairs it before these settle.
      const outcomes = await Promise.allSettled([
        subject.store.consume(fresh, LATER()),
        subject.store.consume(recorded, LATER()),
      ]);
      const [first] = outcomes;
      expect(first.status).toBe('rejected');
      expect((first as PromiseRejectedResult).reason).toBeInstanceOf(ConsumedStateStoreError);
      for (const outcome of outcomes)
        expect(outcome.status === 'fulfilled' && outcome.value === true).toBe(false);
      await subject.repair();
      // Refused while broken means not consumed: the same state is accepted once repaired.
      expect(await subject.store.consume(fresh, LATER())).toBe(true);
      expect(await subject.store.consume(fresh, LATER())).toBe(false);
    });
  });
}

/** The capacity of a store made for the bounded cases. @publicApi */
export interface ConsumedStateCapacity {
  readonly maxEntries: number;
  readonly maxEntriesPerOwner: number;
}

/**
 * The fair-share rules of a store with a capacity of its own (the module's): presentations name
 * their owner; a presentation the store has no room for is refused `full`, one whose owner holds
 * its share `share` — its own limit, or less while the store is nearly full — each with a retry
 * hint, and neither consumes the state.
 */
function describeBoundedConsumedStateStoreContract(
  name: string,
  create: (
    capacity: ConsumedStateCapacity,
  ) => Promise<{ store: ConsumedStateStore; close(): Promise<void> }>,
): void {
  const { describe, it, afterEach, expect } = testRunnerGlobals();
  describe(`ConsumedStateStore contract, capacity and fair shares: ${name}`, () => {
    const opened: { close(): Promise<void> }[] = [];
    let run = 0;
    const id = (label: string) => `${label}-${process.pid}-${Date.now()}-${++run}`;
    const bounded = async (capacity: ConsumedStateCapacity) => {
      const subject = await create(capacity);
      opened.push(subject);
      return subject.store;
    };
    afterEach(async () => {
      for (const subject of opened.splice(0)) await subject.close();
    });
    const refusal = (attempt: Promise<unknown>) =>
      contractRejection(attempt, ConsumedStateStoreError);

    it('refuses a presentation when full ("full", with a retry hint), consuming nothing', async () => {
      const store = await bounded({ maxEntries: 2, maxEntriesPerOwner: 2 });
      expect(await store.consume(id('a'), Date.now() + 300, 'alice')).toBe(true);
      expect(await store.consume(id('b'), LATER(), 'bob')).toBe(true);
      const state = id('c');
      const full = await refusal(store.consume(state, LATER(), 'carol'));
      expect(full.reason).toBe('full');
      expect(full.retryAfterMs).toBeGreaterThanOrEqual(1_000);
      await sleep(350);
      // Refused means not consumed: accepted, once, when there is room.
      expect(await store.consume(state, LATER(), 'carol')).toBe(true);
      expect(await store.consume(state, LATER(), 'carol')).toBe(false);
    });

    it('stops a flood from many owners short of full, so a quiet owner is still served', async () => {
      const store = await bounded({ maxEntries: 40, maxEntriesPerOwner: 10 });
      const held = await floodInTurns((owner) => store.consume(id('flood'), LATER(), owner), {
        reason: 'share',
      });
      const total = [...held.values()].reduce((sum, count) => sum + count, 0);
      expect(total).toBeLessThan(40);
      expect(Math.max(...held.values())).toBeLessThanOrEqual(10);
      expect(await store.consume(id('quiet'), LATER(), 'quiet')).toBe(true);
    });
  });
}
