import { describeSessionStoreContract, createTestSessionRecord } from '../../../entry/testing';
import { MemorySessionStore } from './memory-session.store';
import { SessionCapacityError } from './session-capacity.error';

describeSessionStoreContract('MemorySessionStore', () => new MemorySessionStore());

describe('MemorySessionStore', () => {
  const limits = { maxSessions: 2, maxPerPartition: 2 };

  it('takes a session again once an older one has expired, when it is full', async () => {
    let now = 1_000;
    const store = new MemorySessionStore({ now: () => now });
    await store.create(
      createTestSessionRecord(0, { partition: 'a', expiresAt: now + 100 }),
      limits,
    );
    await store.create(
      createTestSessionRecord(0, { partition: 'b', expiresAt: now + 10_000 }),
      limits,
    );
    await expect(
      store.create(createTestSessionRecord(0, { partition: 'c', expiresAt: now + 10_000 }), limits),
    ).rejects.toBeInstanceOf(SessionCapacityError);
    now += 100;
    await store.create(
      createTestSessionRecord(0, { partition: 'c', expiresAt: now + 10_000 }),
      limits,
    );
    expect(store.size).toBe(2);
  });

  it('hands out frozen sessions, so no caller can change one behind the store', async () => {
    const store = new MemorySessionStore();
    const session = createTestSessionRecord(60_000, { subscriptions: ['test://a'] });
    await store.create(session, limits);
    const stored = await store.get(session.sessionId);
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored?.subscriptions)).toBe(true);
  });

  it("never moves a session to another caller's partition", async () => {
    const store = new MemorySessionStore();
    const session = createTestSessionRecord();
    await store.create(session, limits);
    expect(await store.replace({ ...session, version: 2, partition: 'user:mallory' }, 1)).toBe(
      false,
    );
    expect((await store.get(session.sessionId))?.partition).toBe('user:alice');
  });
});
