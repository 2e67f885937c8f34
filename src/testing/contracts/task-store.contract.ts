import { TaskCapacityError } from '../../ext/tasks/store/task-capacity.error';
import type { McpTaskRecord } from '../../ext/tasks/store/mcp-task.types';
import type { TaskStore } from '../../ext/tasks/store/task-store.interface';
import { setTimeout as sleep } from 'node:timers/promises';
import { testRunnerGlobals } from './test-runner-globals';

/** A task record as the module would create it, expiring `ttlMs` from now. @publicApi */
export function createTestTaskRecord(
  taskId: string,
  ttlMs = 60_000,
  overrides: Partial<McpTaskRecord> = {},
): McpTaskRecord {
  const now = Date.now();
  return {
    taskId,
    version: 1,
    partition: 'alice',
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs,
    expiresAt: now + ttlMs,
    pollIntervalMs: 1000,
    call: { name: 'export', params: { name: 'export', arguments: { rows: 10 } } },
    inputResponses: {},
    runs: 1,
    ...overrides,
  };
}

let counter = 0;
const freshId = () => `contract-${process.pid}-${Date.now()}-${counter++}`;

/** The capacity of a store made for the bounded cases. @publicApi */
export interface TaskStoreCapacity {
  readonly maxTasks: number;
  readonly maxBytes: number;
}

/** A task of `partition` carrying about `bytes` bytes of arguments. */
function weighty(partition: string, bytes: number, ttlMs = 60_000): McpTaskRecord {
  return createTestTaskRecord(freshId(), ttlMs, {
    partition,
    call: { name: 'export', params: { name: 'export', arguments: { blob: 'x'.repeat(bytes) } } },
  });
}

async function refusal(attempt: Promise<unknown>): Promise<TaskCapacityError> {
  const { expect } = testRunnerGlobals();
  const error = await attempt.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TaskCapacityError);
  return error as TaskCapacityError;
}

/**
 * The behaviour every {@link TaskStore} must have: run it against each implementation.
 * `makeStore` gives the store under test, afresh for each case. A store with a capacity of its own
 * (the module's) passes `makeBounded` too, which makes one with the given capacity and nothing in
 * it, and is then held to the fair-share rules as well.
 * @publicApi
 */
export function describeTaskStoreContract(
  name: string,
  makeStore: () => TaskStore | Promise<TaskStore>,
  makeBounded?: (capacity: TaskStoreCapacity) => TaskStore | Promise<TaskStore>,
): void {
  const { describe, it, beforeEach, expect } = testRunnerGlobals();
  if (makeBounded) describeBoundedTaskStoreContract(name, makeBounded);
  describe(`${name} (TaskStore contract)`, () => {
    let current: TaskStore;
    const store = () => current;
    beforeEach(async () => {
      current = await makeStore();
    });

    it('gives back a created task as it was created', async () => {
      const task = createTestTaskRecord(freshId(), 60_000, {
        inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'ok?' } } },
        inputResponses: { earlier: { action: 'accept', content: { n: 3.5 } } },
        exactInputResponses: '{"earlier":{"action":"accept","content":{"n":3.50}}}',
      });
      await store().create(task);
      expect(await store().get(task.taskId)).toEqual(task);
      // The answers' exact text survives the store, digit for digit.
      expect((await store().get(task.taskId))?.exactInputResponses).toBe(task.exactInputResponses);
    });

    it('answers undefined for a task it never had', async () => {
      expect(await store().get(freshId())).toBeUndefined();
    });

    it('refuses to create a task whose id is taken', async () => {
      const task = createTestTaskRecord(freshId());
      await store().create(task);
      await expect(store().create({ ...task, partition: 'mallory' })).rejects.toThrow();
      expect((await store().get(task.taskId))?.partition).toBe('alice');
    });

    it('keeps its own copy: changing the object given to create changes nothing stored', async () => {
      const task = createTestTaskRecord(freshId()) as McpTaskRecord & { status: string };
      await store().create(task);
      (task as { status: string }).status = 'completed';
      expect((await store().get(task.taskId))?.status).toBe('working');
    });

    it('replaces a task only from the version it was read at, one version up', async () => {
      const task = createTestTaskRecord(freshId());
      await store().create(task);
      const next = { ...task, version: 2, status: 'completed' as const, result: { content: [] } };
      expect(await store().replace(next, 1)).toBe(true);
      expect(await store().get(task.taskId)).toEqual(next);
      // A writer still holding version 1 loses.
      expect(await store().replace({ ...task, version: 2, status: 'cancelled' }, 1)).toBe(false);
      // A version that skips ahead is refused too.
      expect(await store().replace({ ...next, version: 4 }, 2)).toBe(false);
      expect((await store().get(task.taskId))?.status).toBe('completed');
    });

    it('lets exactly one of many concurrent writers from the same version win', async () => {
      const task = createTestTaskRecord(freshId());
      await store().create(task);
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, writer) =>
          store().replace({ ...task, version: 2, statusMessage: `writer ${writer}` }, 1),
        ),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = outcomes.indexOf(true);
      expect((await store().get(task.taskId))?.statusMessage).toBe(`writer ${winner}`);
    });

    it('cannot replace a task it does not have', async () => {
      expect(await store().replace({ ...createTestTaskRecord(freshId()), version: 2 }, 1)).toBe(
        false,
      );
    });

    it('forgets a task once it has expired', async () => {
      const task = createTestTaskRecord(freshId(), 150);
      await store().create(task);
      expect(await store().get(task.taskId)).toBeDefined();
      await sleep(200);
      expect(await store().get(task.taskId)).toBeUndefined();
      expect(await store().replace({ ...task, version: 2 }, 1)).toBe(false);
    });

    it('holds at most maxPerPartition unexpired tasks per partition, atomically', async () => {
      const partition = `caller-${freshId()}`;
      const limits = { maxPerPartition: 3 };
      const attempts = await Promise.allSettled(
        Array.from({ length: 10 }, () =>
          store().create(createTestTaskRecord(freshId(), 60_000, { partition }), limits),
        ),
      );
      expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(3);
      for (const attempt of attempts.filter((each) => each.status === 'rejected')) {
        const reason = (attempt as PromiseRejectedResult).reason as TaskCapacityError;
        expect(reason).toBeInstanceOf(TaskCapacityError);
        expect(reason).toMatchObject({ scope: 'caller', maxTasks: 3 });
      }
      // Another caller has an allowance of its own.
      await expect(
        store().create(
          createTestTaskRecord(freshId(), 60_000, { partition: `${partition}-other` }),
          limits,
        ),
      ).resolves.toBeUndefined();
    });

    it('gives a caller its allowance back as its tasks expire', async () => {
      const partition = `caller-${freshId()}`;
      const limits = { maxPerPartition: 1 };
      await store().create(createTestTaskRecord(freshId(), 150, { partition }), limits);
      await expect(
        store().create(createTestTaskRecord(freshId(), 60_000, { partition }), limits),
      ).rejects.toBeInstanceOf(TaskCapacityError);
      await sleep(200);
      await expect(
        store().create(createTestTaskRecord(freshId(), 60_000, { partition }), limits),
      ).resolves.toBeUndefined();
    });
  });
}

/** The fair-share rules of a store with a capacity of its own (see {@link describeTaskStoreContract}). */
function describeBoundedTaskStoreContract(
  name: string,
  makeBounded: (capacity: TaskStoreCapacity) => TaskStore | Promise<TaskStore>,
): void {
  const { describe, it, expect } = testRunnerGlobals();
  describe(`${name} (TaskStore contract: capacity and fair shares)`, () => {
    const big = 1 << 30;

    it('refuses a task past its capacity with scope "store" and a retry hint, and takes one once room is made', async () => {
      const store = await makeBounded({ maxTasks: 3, maxBytes: big });
      // The short-lived task must outlive the next create: it lives ten times what two creates
      // took here (at least 150 ms), so a loaded machine gives it longer.
      const started = Date.now();
      for (const partition of ['p2', 'p3'])
        await store.create(createTestTaskRecord(freshId(), 60_000, { partition }));
      const shortTtlMs = Math.max(150, 10 * (Date.now() - started));
      await store.create(createTestTaskRecord(freshId(), shortTtlMs, { partition: 'p1' }));
      const full = await refusal(
        store.create(createTestTaskRecord(freshId(), 60_000, { partition: 'p4' })),
      );
      expect(full).toMatchObject({ scope: 'store', maxTasks: 3, unit: 'tasks' });
      expect(full.retryAfterMs).toBeGreaterThanOrEqual(1_000);
      await sleep(shortTtlMs + 50);
      await expect(
        store.create(createTestTaskRecord(freshId(), 60_000, { partition: 'p4' })),
      ).resolves.toBeUndefined();
    });

    it('stops a flood from many callers short of full, so a quiet caller still creates a task', async () => {
      const store = await makeBounded({ maxTasks: 40, maxBytes: big });
      const limits = { maxPerPartition: 10 };
      const held = new Map<string, number>();
      // Ten callers each create until refused, in turns.
      for (let round = 0; round < 12; round++)
        for (let caller = 0; caller < 10; caller++) {
          const partition = `flood-${caller}`;
          const created = await store
            .create(createTestTaskRecord(freshId(), 60_000, { partition }), limits)
            .then(
              () => true,
              (error: unknown) => {
                expect(error).toBeInstanceOf(TaskCapacityError);
                expect(error).toMatchObject({ scope: 'caller' });
                return false;
              },
            );
          if (created) held.set(partition, (held.get(partition) ?? 0) + 1);
        }
      const total = [...held.values()].reduce((sum, count) => sum + count, 0);
      // k = 10 callers × 10 / (40 × 0.25) = 10: the flood settles near 40 × 10 / 11.
      expect(total).toBeLessThan(40);
      expect(Math.max(...held.values()) - Math.min(...held.values())).toBeLessThanOrEqual(1);
      await expect(
        store.create(createTestTaskRecord(freshId(), 60_000, { partition: 'quiet' }), limits),
      ).resolves.toBeUndefined();
    });

    it('bounds the bytes one caller and the whole store hold', async () => {
      // 20 kB tasks: whatever a store adds per record, two fit a caller's 50 kB and four the store's 100 kB.
      const store = await makeBounded({ maxTasks: 100, maxBytes: 100_000 });
      const limits = { maxBytesPerPartition: 50_000 };
      await store.create(weighty('heavy', 20_000), limits);
      await store.create(weighty('heavy', 20_000), limits);
      const mine = await refusal(store.create(weighty('heavy', 20_000), limits));
      expect(mine).toMatchObject({ scope: 'caller', unit: 'bytes', maxTasks: 50_000 });
      await store.create(weighty('b', 20_000), limits);
      await store.create(weighty('c', 20_000), limits);
      const full = await refusal(store.create(weighty('d', 20_000), limits));
      expect(full).toMatchObject({ scope: 'store', unit: 'bytes', maxTasks: 100_000 });
    });

    it("refuses a replace that grows past the caller's bytes, keeping the task as it was", async () => {
      const store = await makeBounded({ maxTasks: 100, maxBytes: big });
      const limits = { maxBytesPerPartition: 30_000 };
      const task = weighty('grower', 1_000);
      await store.create(task, limits);
      const grown = {
        ...task,
        version: 2,
        status: 'completed' as const,
        result: { blob: 'y'.repeat(40_000) },
      };
      const refused = await refusal(store.replace(grown, 1, limits));
      expect(refused).toMatchObject({ scope: 'caller', unit: 'bytes' });
      expect(await store.get(task.taskId)).toEqual(task);
      // A result that fits is kept.
      const fits = { ...grown, result: { blob: 'y'.repeat(10_000) } };
      expect(await store.replace(fits, 1, limits)).toBe(true);
    });

    it('gives a caller its allowance back when a task is removed, or replaced to expire now', async () => {
      const store = await makeBounded({ maxTasks: 100, maxBytes: big });
      const limits = { maxPerPartition: 1 };
      const partition = `remover-${freshId()}`;
      const first = createTestTaskRecord(freshId(), 60_000, { partition });
      await store.create(first, limits);
      await refusal(store.create(createTestTaskRecord(freshId(), 60_000, { partition }), limits));
      if (store.remove) {
        await store.remove(first);
        expect(await store.get(first.taskId)).toBeUndefined();
      } else {
        expect(await store.replace({ ...first, version: 2, expiresAt: Date.now() + 100 }, 1)).toBe(
          true,
        );
        await sleep(150);
      }
      await expect(
        store.create(createTestTaskRecord(freshId(), 60_000, { partition }), limits),
      ).resolves.toBeUndefined();
      // Replacing a task to expire sooner frees its slot when that time comes.
      const second = createTestTaskRecord(freshId(), 60_000, { partition: `${partition}-b` });
      await store.create(second, limits);
      expect(await store.replace({ ...second, version: 2, expiresAt: Date.now() + 100 }, 1)).toBe(
        true,
      );
      await sleep(150);
      await expect(
        store.create(
          createTestTaskRecord(freshId(), 60_000, { partition: `${partition}-b` }),
          limits,
        ),
      ).resolves.toBeUndefined();
    });
  });
}
