import { describeTaskStoreContract, createTestTaskRecord } from '../../../entry/testing';
import { MemoryTaskStore } from './memory-task.store';
import { TaskCapacityError } from './task-capacity.error';

describeTaskStoreContract(
  'MemoryTaskStore',
  () => new MemoryTaskStore(),
  (capacity) => new MemoryTaskStore(capacity),
);

describe('MemoryTaskStore', () => {
  it('refuses a task past maxTasks, and takes one again once an older one expires', async () => {
    let now = 1_000;
    const store = new MemoryTaskStore({ maxTasks: 2, now: () => now });
    await store.create(createTestTaskRecord('a', 60_000, { expiresAt: now + 100 }));
    await store.create(createTestTaskRecord('b', 60_000, { expiresAt: now + 10_000 }));
    await expect(store.create(createTestTaskRecord('c'))).rejects.toBeInstanceOf(TaskCapacityError);
    now += 100;
    await store.create(createTestTaskRecord('c', 60_000, { expiresAt: now + 10_000 }));
    expect(store.size).toBe(2);
    expect(await store.get('a')).toBeUndefined();
  });

  it('hands out frozen tasks, so no caller can change one behind the store', async () => {
    const store = new MemoryTaskStore();
    await store.create(createTestTaskRecord('frozen'));
    const task = await store.get('frozen');
    expect(Object.isFrozen(task)).toBe(true);
    expect(Object.isFrozen(task?.call.params)).toBe(true);
  });
});
