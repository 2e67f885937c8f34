import { TaskCapacityError } from './task-capacity.error';
import type { McpTaskRecord } from './mcp-task.types';
import type { TaskStore } from './task-store.interface';
import { setTimeout as sleep } from 'node:timers/promises';
import { testRunnerGlobals } from '../../../kit/test-runner-globals';
import { createTestTaskRecord, freshId } from './test-task-record';
import { contractRejection } from '../../../kit/contract-rejection';
import { floodInTurns } from '../../../kit/contract-flood';

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

function refusal(attempt: Promise<unknown>): Promise<TaskCapacityError> {
  return contractRejection(attempt, TaskCapacityError);
}

/** The fair-share rules of a store with a capacity of its own (see `describeTaskStoreContract`). @internal */
export function describeBoundedTaskStoreContract(
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
      // Ten callers each create until refused, in turns.
      const held = await floodInTurns(
        (partition) => store.create(createTestTaskRecord(freshId(), 60_000, { partition }), limits),
        { scope: 'caller' },
        TaskCapacityError,
      );
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
