import type { McpTaskRecord } from '../store/mcp-task.types';
import { MemoryFleetBus } from '../../../wire/fleet/memory-fleet-bus';
import { TASK_STATUS_CHANNEL } from './task-status-channel';
import { TaskStatusFeed } from './task-status-feed';
import type { TaskStore } from '../store/task-store.interface';

/** A store whose reads the test answers one by one. */
class SlowStore implements TaskStore {
  readonly reads: { taskId: string; answer: (task: McpTaskRecord | undefined) => void }[] = [];
  create(): Promise<void> {
    throw new Error('not used');
  }
  replace(): Promise<boolean> {
    throw new Error('not used');
  }
  get(taskId: string): Promise<McpTaskRecord | undefined> {
    return new Promise((answer) => this.reads.push({ taskId, answer }));
  }
}

/** A bus that can be told its connection came back. */
class ReconnectingBus extends MemoryFleetBus {
  reconnected(): void {
    this.resyncAll();
  }
}

const task = (taskId: string, version: number) => ({ taskId, version }) as McpTaskRecord;
const settle = () => new Promise((done) => setImmediate(done));

function feed() {
  const bus = new ReconnectingBus();
  const store = new SlowStore();
  const statusFeed = new TaskStatusFeed(bus, store);
  statusFeed.onModuleInit();
  return { bus, store, statusFeed };
}

describe('TaskStatusFeed', () => {
  it('reads a followed task once per event however many follow it, and never an unfollowed one', async () => {
    const { bus, store, statusFeed } = feed();
    const seen: string[] = [];
    statusFeed.follow(['t1'], (read) => seen.push(`first v${read.version}`));
    statusFeed.follow(['t1', 't1'], (read) => seen.push(`second v${read.version}`));
    bus.publish(TASK_STATUS_CHANNEL, { taskId: 'other', version: 2 });
    bus.publish(TASK_STATUS_CHANNEL, { taskId: 't1', version: 2 });
    expect(store.reads.map((read) => read.taskId)).toEqual(['t1']);
    store.reads[0]!.answer(task('t1', 2));
    await settle();
    expect(seen).toEqual(['first v2', 'second v2']);
  });

  it('answers events that arrive during a read with one more read, not one each', async () => {
    const { bus, store, statusFeed } = feed();
    const seen: number[] = [];
    statusFeed.follow(['t1'], (read) => seen.push(read.version));
    for (let version = 2; version <= 20; version++)
      bus.publish(TASK_STATUS_CHANNEL, { taskId: 't1', version });
    expect(store.reads).toHaveLength(1);
    store.reads[0]!.answer(task('t1', 3));
    await settle();
    expect(store.reads).toHaveLength(2);
    store.reads[1]!.answer(task('t1', 20));
    await settle();
    expect(store.reads).toHaveLength(2);
    expect(seen).toEqual([3, 20]);
  });

  it('stops telling a follower that unfollowed, and reports nothing for a task the store no longer has', async () => {
    const { bus, store, statusFeed } = feed();
    const seen: number[] = [];
    const unfollow = statusFeed.follow(['t1'], (read) => seen.push(read.version));
    bus.publish(TASK_STATUS_CHANNEL, { taskId: 't1', version: 2 });
    store.reads[0]!.answer(undefined);
    await settle();
    unfollow();
    bus.publish(TASK_STATUS_CHANNEL, { taskId: 't1', version: 3 });
    expect(store.reads).toHaveLength(1);
    expect(seen).toEqual([]);
  });

  it('re-reads every followed task when the bus asks for a resync', () => {
    const { bus, store, statusFeed } = feed();
    statusFeed.follow(['t1', 't2'], () => undefined);
    bus.reconnected();
    expect(store.reads.map((read) => read.taskId).sort()).toEqual(['t1', 't2']);
  });
});
