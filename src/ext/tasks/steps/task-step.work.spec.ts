import { MemoryFleetBus } from '../../../wire/fleet/memory-fleet-bus';
import { TASK_STATUS_CHANNEL } from '../events/task-status-channel';
import { GuardedTaskStore } from '../store/guarded-task-store';
import type { McpTaskRecord } from '../store/mcp-task.types';
import { MemoryTaskStore } from '../store/memory-task.store';
import { TaskRecords } from '../task-records';
import type { ResolvedTaskOptions } from '../task.options';
import type { TaskExecutor, TaskStepOutcome } from './task-step-outcome';
import { TaskStepRequests } from './task-step-requests';
import { TaskStepWork } from './task-step.work';

const DONE: TaskStepOutcome = { kind: 'complete', result: { content: [] } };

function setup() {
  const store = new MemoryTaskStore();
  const events = new MemoryFleetBus();
  const options = { maxResultBytes: 10_000, maxTasksPerCaller: 10 } as ResolvedTaskOptions;
  const records = new TaskRecords(options, new GuardedTaskStore(store), events);
  const runs: McpTaskRecord[] = [];
  let outcome: () => Promise<TaskStepOutcome> = () => Promise.resolve(DONE);
  const executor: TaskExecutor = {
    run: (task) => {
      runs.push(task);
      return outcome();
    },
  };
  const work = new TaskStepWork(records, new TaskStepRequests(events), executor);
  const task = async (): Promise<McpTaskRecord> => {
    const now = Date.now();
    const record: McpTaskRecord = {
      taskId: `t${Math.random().toString(36).slice(2)}`,
      version: 1,
      partition: 'alice',
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      expiresAt: now + 60_000,
      pollIntervalMs: 1_000,
      call: { name: 't', params: {} },
      inputResponses: {},
      runs: 1,
    };
    await store.create(record);
    return record;
  };
  return {
    store,
    events,
    records,
    work,
    runs,
    task,
    setOutcome: (next: typeof outcome) => (outcome = next),
  };
}

const signal = () => new AbortController().signal;

describe('TaskStepWork', () => {
  it('claims the task, runs it once and records what it ended with', async () => {
    const { store, work, runs, task } = setup();
    const { taskId } = await task();
    await work.run(taskId, signal());
    expect(runs).toHaveLength(1);
    expect(runs[0].stepToken).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(await store.get(taskId)).toMatchObject({ status: 'completed' });
    expect((await store.get(taskId))?.stepToken).toBeUndefined();
  });

  it('does not start the method when the runner says this worker no longer holds the step', async () => {
    const { store, work, runs, task } = setup();
    const { taskId } = await task();
    await work.run(taskId, signal(), { holds: () => Promise.resolve(false) });
    expect(runs).toHaveLength(0);
    expect(await store.get(taskId)).toMatchObject({ status: 'working', version: 1 });
  });

  it('records nothing when the lease is gone by the time the method ends, or cannot be checked', async () => {
    for (const ending of [() => Promise.resolve(false), () => Promise.reject(new Error('down'))]) {
      const { store, work, runs, task } = setup();
      const { taskId } = await task();
      let checks = 0;
      await work.run(taskId, signal(), {
        holds: () => (checks++ === 0 ? Promise.resolve(true) : ending()),
      });
      expect(runs).toHaveLength(1);
      expect(await store.get(taskId)).toMatchObject({ status: 'working' });
    }
  });

  it('reads the task once for a step nothing disturbed: the commit starts from what the claim stored', async () => {
    const { store, work, task } = setup();
    const { taskId } = await task();
    const reads = jest.spyOn(store, 'get');
    const writes = jest.spyOn(store, 'replace');
    await work.run(taskId, signal());
    expect(reads).toHaveBeenCalledTimes(1);
    expect(writes).toHaveBeenCalledTimes(2);
    expect(await store.get(taskId)).toMatchObject({ status: 'completed', version: 3 });
  });

  it('announces a task on the bus from its first change on, not when it is created', async () => {
    const { events, records, work, task } = setup();
    const announced: number[] = [];
    events.subscribe(TASK_STATUS_CHANNEL, ({ version }) => announced.push(version));
    const created = await task();
    const record = { ...created, taskId: `${created.taskId}x` };
    await records.create(record);
    expect(announced).toEqual([]);
    await work.run(record.taskId, signal());
    // The claim (version 2) changes no status; the outcome (version 3) does.
    expect(announced).toEqual([3]);
  });

  it('still records the outcome when the task moved on after the claim (a progress report)', async () => {
    const { store, work, task, setOutcome } = setup();
    const { taskId } = await task();
    const progressed = new Promise<void>((done) =>
      setOutcome(async () => {
        const claimed = await store.get(taskId);
        await store.replace(
          { ...claimed!, version: claimed!.version + 1, statusMessage: 'half' },
          claimed!.version,
        );
        done();
        return DONE;
      }),
    );
    await work.run(taskId, signal());
    await progressed;
    const settled = await store.get(taskId);
    expect(settled).toMatchObject({ status: 'completed', version: 4 });
    expect(settled?.statusMessage).toBeUndefined();
  });

  it('does not run the method when its claim lost to a cancel', async () => {
    const { store, work, runs, task } = setup();
    const { taskId } = await task();
    const replace = store.replace.bind(store);
    let first = true;
    jest.spyOn(store, 'replace').mockImplementation(async (next, expected) => {
      if (first) {
        first = false;
        // A cancel lands between the claim's read and its compare-and-set.
        const current = (await store.get(taskId))!;
        await replace(
          { ...current, version: current.version + 1, status: 'cancelled' },
          current.version,
        );
      }
      return replace(next, expected);
    });
    await work.run(taskId, signal());
    expect(runs).toHaveLength(0);
    expect(await store.get(taskId)).toMatchObject({ status: 'cancelled' });
  });

  it('records nothing for a step whose claim another step took meanwhile', async () => {
    const { store, work, task, setOutcome } = setup();
    const { taskId } = await task();
    let release!: () => void;
    setOutcome(() => new Promise((done) => (release = () => done(DONE))));
    const stale = work.run(taskId, signal());
    await new Promise((wake) => setImmediate(wake));
    // Another worker took the step over (a claim of its own), and is still running it.
    setOutcome(() => new Promise(() => undefined));
    void work.run(taskId, signal());
    await new Promise((wake) => setImmediate(wake));
    release();
    await stale;
    expect(await store.get(taskId)).toMatchObject({ status: 'working' });
  });
});
