import { ProtocolError } from '@modelcontextprotocol/server';
import type { ResolvedTaskOptions } from './task.options';
import { McpTasksService } from './mcp-tasks.service';
import { MemoryFleetBus } from '../../wire/fleet/memory-fleet-bus';
import { MemoryTaskStore } from './store/memory-task.store';
import type { McpTaskRecord } from './store/mcp-task.types';
import type { TaskRunner, TaskWork } from './runner/task-runner.interface';
import type { TaskExecutor, TaskStepOutcome, TaskStepScope } from './steps/task-step-outcome';
import type { TaskStore } from './store/task-store.interface';
import { GuardedTaskStore } from './store/guarded-task-store';
import { TaskRecords } from './task-records';
import { TaskStepRequests } from './steps/task-step-requests';
import { TaskStepWork } from './steps/task-step.work';
import { KeyringManager } from '../../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { rejectionOf } from '../../kit/thrown.spec-helper';

/** A runner that only records: each test runs the steps itself, in the order it needs. */
class RecordingRunner implements TaskRunner {
  work!: TaskWork;
  scheduled: string[] = [];
  cancelled: string[] = [];
  attach(work: TaskWork) {
    this.work = work;
  }
  async schedule(taskId: string) {
    this.scheduled.push(taskId);
  }
  async cancel(taskId: string) {
    this.cancelled.push(taskId);
  }
  async close() {}
}

const ASK = {
  approve: { method: 'elicitation/create', params: { message: 'ok?', requestedSchema: {} } },
  note: { method: 'elicitation/create', params: { message: 'note?', requestedSchema: {} } },
};
const YES = { action: 'accept', content: { ok: true } };

/** The step a test lets a task run: replaced per test. */
class SettableExecutor implements TaskExecutor {
  step: TaskExecutor['run'] = () => Promise.reject(new Error('no step set'));
  run(task: McpTaskRecord, scope: TaskStepScope): Promise<TaskStepOutcome> {
    return this.step(task, scope);
  }
}

function service(store: TaskStore = new MemoryTaskStore()) {
  const runner = new RecordingRunner();
  const events = new MemoryFleetBus();
  const executor = new SettableExecutor();
  const options = {
    ttlMs: 60_000,
    maxTtlMs: 60_000,
    pollIntervalMs: 100,
    maxResultBytes: 1_000,
    maxInputResponseBytes: 200,
    maxTasksPerCaller: 100,
    maxStoreBytesPerCaller: 1_000_000,
    runner,
  } as unknown as ResolvedTaskOptions;
  const guarded = new GuardedTaskStore(store);
  const records = new TaskRecords(options, guarded, events);
  const requests = new TaskStepRequests(events);
  const work = new TaskStepWork(records, requests, executor);
  const keyring = new KeyringManager({
    keyring: { active: 'k', keys: { k: Buffer.alloc(32, 1) } },
  });
  const tasks = new McpTasksService(
    options,
    records,
    requests,
    work,
    new KeyringRecordIntegrity(keyring),
  );
  return { tasks, runner, store, events, executor, records, requests };
}

async function parked(tasks: McpTasksService): Promise<McpTaskRecord> {
  const task = await tasks.create('alice', { name: 't', params: {} }, 60_000, {}, undefined);
  await tasks.settle(task.taskId, {
    kind: 'input_required',
    inputRequests: ASK,
    requestState: 's',
  });
  return tasks.find(task.taskId, 'alice');
}

/** A service whose parked task alice has answered in full: the record the next step resumes. */
async function answered() {
  const { tasks, runner, store } = service();
  const task = await parked(tasks);
  const resumed = (await tasks.update(task.taskId, 'alice', {
    approve: YES,
    note: { action: 'decline' },
  })) as McpTaskRecord;
  return { tasks, runner, store, task, resumed };
}

describe('McpTasksService', () => {
  it('keeps a task cancelled when the step it cancelled ends afterwards', async () => {
    const { tasks, runner, executor } = service();
    let finish!: (outcome: TaskStepOutcome) => void;
    executor.step = () => new Promise((resolve) => (finish = resolve));
    const task = await tasks.create('alice', { name: 't', params: {} }, 60_000, {}, undefined);
    const controller = new AbortController();
    const step = runner.work(task.taskId, controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    await tasks.cancel(task.taskId, 'alice');
    expect(runner.cancelled).toEqual([task.taskId]);
    finish({ kind: 'complete', result: { content: [] } });
    await step;
    const after = await tasks.find(task.taskId, 'alice');
    expect(after.status).toBe('cancelled');
    expect(after.result).toBeUndefined();
  });

  it('resumes once when two updates race to answer the last question', async () => {
    const { tasks } = service();
    const task = await parked(tasks);
    await tasks.update(task.taskId, 'alice', { note: { action: 'decline' } });
    const resumed = await Promise.all([
      tasks.update(task.taskId, 'alice', { approve: YES }),
      tasks.update(task.taskId, 'alice', { approve: { action: 'accept', content: { ok: false } } }),
    ]);
    expect(resumed.filter((written) => written !== undefined)).toHaveLength(1);
    const after = await tasks.find(task.taskId, 'alice');
    expect(after).toMatchObject({ status: 'working', runs: 2 });
    expect(after.inputRequests).toBeUndefined();
    expect(Object.keys(after.inputResponses).sort()).toEqual(['approve', 'note']);
    // The state the parked step sealed is what the next step opens.
    expect(after.requestState).toBe('s');
  });

  it('answers -32603 and gives the slot back when the step an answer resumes cannot be scheduled', async () => {
    const { tasks, runner, store, task, resumed } = await answered();
    runner.schedule = () => Promise.reject(new Error('OOM command not allowed'));
    const refusal = await rejectionOf(tasks.resume(resumed, {} as HttpExchange), ProtocolError);
    expect(refusal).toMatchObject({ code: -32603, message: 'Internal error' });
    // Gone, not failed and holding the caller's slot until it would have expired.
    expect(await store.get(task.taskId)).toBeUndefined();
  });

  it('answers the retryable -32000 when the runner is away (its Redis out of memory), and gives the slot back', async () => {
    const { tasks, runner, store, task, resumed } = await answered();
    runner.schedule = () =>
      Promise.reject(
        Object.assign(new Error('OOM command not allowed when used memory > maxmemory'), {
          name: 'ReplyError',
        }),
      );
    const exchange = { request: {}, raw: {}, response: {} } as HttpExchange;
    const refusal = await rejectionOf(tasks.resume(resumed, exchange), ProtocolError);
    expect(refusal).toMatchObject({
      code: -32000,
      message: 'Server busy: the task runner is unavailable',
      data: { retryAfterMs: 1_000 },
    });
    expect(await store.get(task.taskId)).toBeUndefined();
  });

  it('keeps a cancel the runner could not hear, answers -32000, and tells the runner on the retry', async () => {
    const { tasks, runner } = service();
    const task = await parked(tasks);
    const cancel = runner.cancel.bind(runner);
    runner.cancel = () => Promise.reject(new Error('Connection is closed.'));
    await expect(tasks.cancel(task.taskId, 'alice')).rejects.toMatchObject({
      code: -32000,
      message: 'Server busy: the task runner is unavailable',
    });
    expect((await tasks.find(task.taskId, 'alice')).status).toBe('cancelled');
    runner.cancel = cancel;
    await tasks.cancel(task.taskId, 'alice');
    expect(runner.cancelled).toEqual([task.taskId]);
  });

  it('refuses answers over maxInputResponseBytes and keeps the task as it was', async () => {
    const { tasks } = service();
    const task = await parked(tasks);
    const long = { action: 'accept', content: { text: 'x'.repeat(300) } };
    await expect(tasks.update(task.taskId, 'alice', { note: long })).rejects.toBeInstanceOf(
      ProtocolError,
    );
    expect(await tasks.find(task.taskId, 'alice')).toEqual(task);
  });

  it('writes despite losing a compare-and-set to another writer, from the task as it now is', async () => {
    const memory = new MemoryTaskStore();
    let interfere = true;
    const racing: TaskStore = {
      create: (task) => memory.create(task),
      get: (taskId) => memory.get(taskId),
      async replace(next, expected) {
        if (interfere) {
          interfere = false;
          const current = (await memory.get(next.taskId)) as McpTaskRecord;
          await memory.replace(
            { ...current, version: expected + 1, statusMessage: 'other' },
            expected,
          );
        }
        return memory.replace(next, expected);
      },
    };
    const { tasks } = service(racing);
    const task = await tasks.create('alice', { name: 't', params: {} }, 60_000, {}, undefined);
    await tasks.settle(task.taskId, { kind: 'failed', error: { code: -32603, message: 'boom' } });
    const after = await tasks.find(task.taskId, 'alice');
    expect(after).toMatchObject({ status: 'failed', version: 3 });
    expect(after.statusMessage).toBeUndefined();
  });

  it('answers the same -32602 for an id of another partition, an unknown id and a non-string', async () => {
    const { tasks } = service();
    const task = await tasks.create('alice', { name: 't', params: {} }, 60_000, {}, undefined);
    for (const [taskId, partition] of [
      [task.taskId, 'bob'],
      ['unknown', 'alice'],
      [42, 'alice'],
      ['x'.repeat(500), 'alice'],
    ] as const) {
      await expect(tasks.find(taskId, partition)).rejects.toMatchObject({
        code: -32602,
        message: 'Unknown task',
      });
    }
  });
});
