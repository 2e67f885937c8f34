import Redis from 'ioredis';
import { KeyringManager } from '../../../src/keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../../src/keyring/record-integrity';
import {
  RedisSessionStore,
  RedisStateHandleRepository,
  RedisTaskStore,
} from '../../../src/entry/redis';
import { createTestSessionRecord, createTestTaskRecord } from '../../../src/entry/testing';
import { closeRedisClient } from '../../utils/redis-server';
import { SuiteScope } from '../../utils/suite-resource';
import { redisForSuite } from '../../utils/redis-suite';

/*
 * A write the caller was told failed is never applied later: Redis paused (`CLIENT PAUSE … WRITE`)
 * longer than the write's command timeout holds each script in its socket; once Redis runs them,
 * past their deadline, they change nothing. A handle rotation, a task update and a session change
 * (the single-use claim has its own suite, redis-round-trip). Each store is given the app's own
 * client, which waits as long as Redis does and resends what it sent: the deadline inside the
 * script is what holds.
 */
const PAUSE_MS = 1_500;
const TIMEOUT_MS = 300;

const scope = new SuiteScope();
const { server: redis, client: admin } = redisForSuite(scope);
/** The app's own client: ioredis's defaults, waiting as long as Redis does. */
const client = scope.open(
  () => new Redis(redis.url),
  (opened) => closeRedisClient(opened),
);

/** Runs `write` while Redis holds writes for longer than the write may take; its outcome. */
async function whilePaused<T>(write: () => Promise<T>): Promise<T | unknown> {
  await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
  try {
    return await write().then(
      (value) => value,
      (error: unknown) => error,
    );
  } finally {
    await admin.call('CLIENT', 'UNPAUSE');
  }
}

const reasonOf = (outcome: unknown) => (outcome as { reason?: unknown; message?: unknown }) ?? {};

describe('writes that reach Redis after their deadline', () => {
  it('a handle rotation: refused (timeout), and the handle still redeems once afterwards', async () => {
    const repository = new RedisStateHandleRepository(client, { commandTimeoutMs: TIMEOUT_MS });
    const record = { binding: 'b', data: '"draft"', expiresAt: Date.now() + 60_000, round: 1 };
    await repository.put('handle-1', record);
    const outcome = await whilePaused(() => repository.redeem('handle-1', 'b', 'handle-2'));
    expect(reasonOf(outcome).reason).toBe('timeout');
    // The paused redemption ran after Redis resumed, past its deadline: nothing moved.
    await admin.ping();
    expect(await admin.exists('nestjs-mcp:handle:handle-1')).toBe(1);
    expect(await admin.exists('nestjs-mcp:handle:handle-2')).toBe(0);
    expect((await repository.redeem('handle-1', 'b', 'handle-3'))?.data).toBe('"draft"');
    expect(await repository.redeem('handle-1', 'b', 'handle-4')).toBeUndefined();
  });

  it('a task update: refused (late) once Redis runs it, and the task is as it was', async () => {
    const store = new RedisTaskStore(client, { commandTimeoutMs: TIMEOUT_MS });
    const task = createTestTaskRecord(`late-${Date.now()}`);
    await store.create(task);
    const outcome = await whilePaused(() =>
      store.replace({ ...task, version: 2, status: 'cancelled' }, 1),
    );
    expect(reasonOf(outcome).reason).toBe('late');
    expect(await store.get(task.taskId)).toEqual(task);
    expect(await store.replace({ ...task, version: 2, status: 'cancelled' }, 1)).toBe(true);
  });

  it('a session change: refused (late) once Redis runs it, and the session is as it was', async () => {
    const integrity = new KeyringRecordIntegrity(
      new KeyringManager({ keyring: { active: 'k1', keys: { k1: Buffer.alloc(32, 7) } } }),
    );
    const store = new RedisSessionStore(client, { integrity, commandTimeoutMs: TIMEOUT_MS });
    const session = createTestSessionRecord();
    await store.create(session, { maxSessions: 10, maxPerPartition: 10 });
    const changed = { ...session, version: 2, logLevel: 'debug' };
    const outcome = await whilePaused(() => store.replace(changed, 1));
    expect(reasonOf(outcome).reason).toBe('late');
    expect(await store.get(session.sessionId)).toEqual(session);
    expect(await store.replace(changed, 1)).toBe(true);
  });
});
