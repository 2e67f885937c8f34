import type { McpSessionRecord } from './session-record';
import { SessionCapacityError } from './session-capacity.error';
import type { SessionStore } from './session-store.interface';
import { newSessionId } from './session-id';
import { testRunnerGlobals } from '../../../kit/test-runner-globals';
import { describeOnFreshSubject } from '../../../kit/contract-fresh-subject';
import {
  expectOneConcurrentWriterWins,
  expectReplaceFromReadVersion,
} from '../../../kit/contract-versioned-replace';
import { expectAcceptedOf } from '../../../kit/contract-rejection';

/** A session record as `initialize` would create it, idle-expiring `idleMs` from now. @publicApi */
export function createTestSessionRecord(
  idleMs = 60_000,
  overrides: Partial<McpSessionRecord> = {},
): McpSessionRecord {
  const now = Date.now();
  return {
    sessionId: newSessionId(),
    version: 1,
    protocolVersion: '2025-11-25',
    clientCapabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'contract', version: '1.0.0' },
    partition: 'user:alice',
    createdAt: now,
    expiresAt: now + idleMs,
    subscriptions: [],
    taskIds: [],
    ...overrides,
  };
}

const ROOMY = { maxSessions: 1_000_000, maxPerPartition: 1_000_000 };
let counter = 0;
const freshPartition = () => `caller-${process.pid}-${Date.now()}-${counter++}`;

/**
 * The behaviour every {@link SessionStore} must have: run it against each implementation.
 * `makeStore` gives the store under test, afresh for each case; `maxSessions` is checked against
 * the store's whole content, so give a store that starts empty.
 * @publicApi
 */
export function describeSessionStoreContract(
  name: string,
  makeStore: () => SessionStore | Promise<SessionStore>,
): void {
  const { it, expect } = testRunnerGlobals();
  describeOnFreshSubject(`${name} (SessionStore contract)`, makeStore, (store) => {
    it('gives back a created session as it was created', async () => {
      const session = createTestSessionRecord(60_000, {
        logLevel: 'info',
        subscriptions: ['test://a'],
        taskIds: ['t1'],
      });
      await store().create(session, ROOMY);
      expect(await store().get(session.sessionId)).toEqual(session);
    });

    it('answers undefined for a session it never had', async () => {
      expect(await store().get(createTestSessionRecord().sessionId)).toBeUndefined();
    });

    it('refuses to create a session whose id is taken, keeping the first', async () => {
      const session = createTestSessionRecord();
      await store().create(session, ROOMY);
      await expect(
        store().create({ ...session, partition: 'user:mallory' }, ROOMY),
      ).rejects.toThrow();
      expect((await store().get(session.sessionId))?.partition).toBe('user:alice');
    });

    it('keeps its own copy: changing the object given to create changes nothing stored', async () => {
      const session = createTestSessionRecord() as McpSessionRecord & { logLevel?: string };
      await store().create(session, ROOMY);
      (session as { logLevel?: string }).logLevel = 'debug';
      expect((await store().get(session.sessionId))?.logLevel).toBeUndefined();
    });

    it('replaces a session only from the version it was read at, one version up', async () => {
      const session = createTestSessionRecord();
      await store().create(session, ROOMY);
      await expectReplaceFromReadVersion(
        store(),
        session.sessionId,
        { ...session, version: 2, logLevel: 'warning' },
        { ...session, version: 2, logLevel: 'error' },
      );
    });

    it('lets exactly one of many concurrent writers from the same version win', async () => {
      const session = createTestSessionRecord();
      await store().create(session, ROOMY);
      await expectOneConcurrentWriterWins(store(), session.sessionId, (writer) => ({
        ...session,
        version: 2,
        subscriptions: [`test://${writer}`],
      }));
    });

    it('cannot replace a session it does not have', async () => {
      expect(await store().replace({ ...createTestSessionRecord(), version: 2 }, 1)).toBe(false);
    });

    it('forgets a session once it has expired, and one it deleted', async () => {
      const idle = createTestSessionRecord(150);
      await store().create(idle, ROOMY);
      expect(await store().get(idle.sessionId)).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await store().get(idle.sessionId)).toBeUndefined();
      expect(await store().replace({ ...idle, version: 2 }, 1)).toBe(false);

      const deleted = createTestSessionRecord();
      await store().create(deleted, ROOMY);
      expect(await store().delete(deleted.sessionId)).toBe(true);
      expect(await store().get(deleted.sessionId)).toBeUndefined();
      expect(await store().delete(deleted.sessionId)).toBe(false);
    });

    it('holds at most maxPerPartition unexpired sessions per caller, atomically', async () => {
      const partition = freshPartition();
      const limits = { maxSessions: 1_000_000, maxPerPartition: 3 };
      await expectAcceptedOf(
        Array.from({ length: 10 }, () =>
          store().create(createTestSessionRecord(60_000, { partition }), limits),
        ),
        3,
        SessionCapacityError,
        { scope: 'caller', maxSessions: 3 },
      );
      // Another caller has an allowance of its own.
      await expect(
        store().create(
          createTestSessionRecord(60_000, { partition: `${partition}-other` }),
          limits,
        ),
      ).resolves.toBeUndefined();
    });

    it('gives a caller its allowance back as its sessions expire or are deleted', async () => {
      const partition = freshPartition();
      const limits = { maxSessions: 1_000_000, maxPerPartition: 1 };
      await store().create(createTestSessionRecord(150, { partition }), limits);
      await expect(
        store().create(createTestSessionRecord(60_000, { partition }), limits),
      ).rejects.toBeInstanceOf(SessionCapacityError);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const next = createTestSessionRecord(60_000, { partition });
      await store().create(next, limits);
      await store().delete(next.sessionId);
      await expect(
        store().create(createTestSessionRecord(60_000, { partition }), limits),
      ).resolves.toBeUndefined();
    });

    it('holds at most maxSessions unexpired sessions in all', async () => {
      const limits = { maxSessions: 2, maxPerPartition: 2 };
      await store().create(
        createTestSessionRecord(60_000, { partition: freshPartition() }),
        limits,
      );
      await store().create(
        createTestSessionRecord(60_000, { partition: freshPartition() }),
        limits,
      );
      const refused = store().create(
        createTestSessionRecord(60_000, { partition: freshPartition() }),
        limits,
      );
      await expect(refused).rejects.toBeInstanceOf(SessionCapacityError);
      await expect(refused).rejects.toMatchObject({ scope: 'store', maxSessions: 2 });
    });

    it('shares a nearly full store fairly: heavy callers are refused first, a newcomer still finds room', async () => {
      const limits = { maxSessions: 10, maxPerPartition: 5 };
      const fill = async (partition: string): Promise<number> => {
        for (let held = 0; ; held++) {
          const created = await store()
            .create(createTestSessionRecord(60_000, { partition }), limits)
            .then(
              () => true,
              (error: unknown) => {
                expect(error).toBeInstanceOf(SessionCapacityError);
                expect(error).toMatchObject({ scope: 'caller' });
                return false;
              },
            );
          if (!created) return held;
        }
      };
      expect(await fill(freshPartition())).toBe(5);
      // Past three-quarters full, the second heavy caller's share shrinks below its own limit.
      expect(await fill(freshPartition())).toBe(4);
      await expect(
        store().create(createTestSessionRecord(60_000, { partition: freshPartition() }), limits),
      ).resolves.toBeUndefined();
    });
  });
}
