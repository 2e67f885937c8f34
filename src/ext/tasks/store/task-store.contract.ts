import { TaskCapacityError } from './task-capacity.error';
import type { McpTaskRecord } from './mcp-task.types';
import type { TaskStore } from './task-store.interface';
import { setTimeout as sleep } from 'node:timers/promises';
import { testRunnerGlobals } from '../../../kit/test-runner-globals';
import { describeOnFreshSubject } from '../../../kit/contract-fresh-subject';
import {
  describeBoundedTaskStoreContract,
  type TaskStoreCapacity,
} from './task-store-capacity.contract';
import { createTestTaskRecord, freshId } from './test-task-record';
import {
  expectOneConcurrentWriterWins,
  expectReplaceFromReadVersion,
} from '../../../kit/contract-versioned-replace';
import { expectAcceptedOf } from '../../../kit/contract-rejection';

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
  const { it, expect } = testRunnerGlobals();
  if (makeBounded) describeBoundedTaskStoreContract(name, makeBounded);
  describeOnFreshSubject(`${name} (TaskStore contract)`, makeStore, (store) => {
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
      await expectReplaceFromReadVersion(
        store(),
        task.taskId,
        { ...task, version: 2, status: 'completed', result: { content: [] } },
        { ...task, version: 2, status: 'cancelled' },
      );
    });

    it('lets exactly one of many concurrent writers from the same version win', async () => {
      const task = createTestTaskRecord(freshId());
      await store().create(task);
      await expectOneConcurrentWriterWins(store(), task.taskId, (writer) => ({
        ...task,
        version: 2,
        statusMessage: `writer ${writer}`,
      }));
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
      await expectAcceptedOf(
        Array.from({ length: 10 }, () =>
          store().create(createTestTaskRecord(freshId(), 60_000, { partition }), limits),
        ),
        3,
        TaskCapacityError,
        { scope: 'caller', maxTasks: 3 },
      );
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
