import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import type { TaskRunner } from '../../../../src/entry/tasks';
import { BullMqTaskRunner, type BullMqTaskRunnerOptions } from '../../../../src/entry/redis';
import { loadOptionalPeer } from '../../../../src/ext/tasks/runner/bullmq-loader';
import { describeTaskRunnerContract } from '../../../../src/entry/testing';
import {
  aborted,
  freshTaskId,
  recordingWork,
} from '../../../../src/ext/tasks/runner/task-runner.contract';
import { startRedisServer, type RedisServerHandle } from '../../../utils/redis-server';
import { until } from '../../../utils/wait';

let redis: RedisServerHandle;
let client: Redis;
const opened: TaskRunner[] = [];
let queues = 0;

/** Short locks, so that a dead worker's step is free again within about a second. */
const FAST: BullMqTaskRunnerOptions = { lockDurationMs: 1_000, stalledIntervalMs: 500 };

function runner(options: BullMqTaskRunnerOptions = {}): BullMqTaskRunner {
  const made = new BullMqTaskRunner(client, { ...FAST, ...options });
  opened.push(made);
  return made;
}

const freshQueue = () => `runner-spec-${process.pid}-${queues++}`;

/** A runner with work that records its steps, attached and ready (on a fresh queue unless named). */
async function working(
  options: BullMqTaskRunnerOptions = {},
): Promise<{ runner: BullMqTaskRunner; seen: ReturnType<typeof recordingWork> }> {
  const seen = recordingWork();
  const made = runner({ queueName: freshQueue(), ...options });
  made.attach(seen.work);
  await made.whenReady();
  return { runner: made, seen };
}

/** A runner that only enqueues and cancels (`worker: false`) on `queueName`. */
function producer(queueName: string): BullMqTaskRunner {
  const made = runner({ queueName, worker: false });
  made.attach(recordingWork().work);
  return made;
}

/** Whether BullMQ's key for the step (generation 1 of `taskId`) is gone, polled until it is. */
const stepRemoved = (queueName: string, taskId: string) =>
  until(async () => (await client.exists(`bull:${queueName}:${taskId}.1`)) === 0, {
    what: `the step of ${taskId} to be removed`,
    everyMs: 50,
  });

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  await client.ping();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((each) => each.close()));
});

afterAll(async () => {
  client?.disconnect();
  await redis?.close();
});

describeTaskRunnerContract('BullMqTaskRunner', () => runner({ queueName: freshQueue() }));

describe('BullMqTaskRunner on a fleet (two runners, one Redis)', () => {
  it('runs a step scheduled on A on B when A has no free worker', async () => {
    const queueName = freshQueue();
    const { runner: a, seen: onA } = await working({ queueName, concurrency: 1 });
    const busy = freshTaskId();
    await a.schedule(busy);
    expect((await onA.nth(1)).taskId).toBe(busy);

    const { seen: onB } = await working({ queueName, concurrency: 1 });
    const next = freshTaskId();
    await a.schedule(next);
    expect((await onB.nth(1)).taskId).toBe(next);
    expect(onA.steps).toHaveLength(1);
  });

  it('hands the step A runs back to the queue when A closes, and B runs it', async () => {
    // Locks that would take a minute to lapse, longer than this test may run: B can only get the
    // step from A handing it back.
    const slowLocks = {
      queueName: freshQueue(),
      lockDurationMs: 60_000,
      stalledIntervalMs: 60_000,
    };
    const { runner: a, seen: onA } = await working(slowLocks);
    const taskId = freshTaskId();
    await a.schedule(taskId);
    const onAStep = await onA.nth(1);

    const { seen: onB } = await working(slowLocks);
    await a.close();
    expect(onAStep.signal.aborted).toBe(true);
    // Handed back by the time close() resolves: BullMQ logged the move from active to waiting
    // (a lapsed lock would log "stalled" instead).
    const events = (await client.xrange(`bull:${slowLocks.queueName}:events`, '-', '+')).map(
      ([, fields]) =>
        Object.fromEntries(fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i], fields[i + 1]]]))),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ event: 'waiting', jobId: `${taskId}.1`, prev: 'active' }),
    );
    expect(events).not.toContainEqual(expect.objectContaining({ event: 'stalled' }));
    // B's worker hears of it when it next reads the queue: at once when it is woken, else when its
    // blocking read times out (BullMQ's drainDelay, 5 s), because A's own blocking read, still open
    // while A closes, may take the wake-up.
    const onBStep = await onB.nth(1, 20_000);
    expect(onBStep.taskId).toBe(taskId);
    await expect(a.schedule(freshTaskId())).rejects.toThrow('not running');
  }, 30_000);

  it('aborts, from B, a step running on A', async () => {
    const queueName = freshQueue();
    const { seen: onA } = await working({ queueName });
    const b = producer(queueName);
    await b.whenReady();
    const taskId = freshTaskId();
    const other = freshTaskId();
    await b.schedule(taskId);
    await b.schedule(other);
    await onA.nth(2);
    await b.cancel(taskId);
    await aborted(onA.steps.find((step) => step.taskId === taskId)!.signal);
    expect(onA.steps.find((step) => step.taskId === other)!.signal.aborted).toBe(false);
  });

  it('drops a cancelled step still waiting in the queue', async () => {
    const queueName = freshQueue();
    const { runner: a, seen: onA } = await working({ queueName, concurrency: 1 });
    const busy = freshTaskId();
    await a.schedule(busy);
    const busyStep = await onA.nth(1);
    const waiting = freshTaskId();
    await a.schedule(waiting);
    await producer(queueName).cancel(waiting);
    expect(await client.exists(`bull:${queueName}:${waiting}.1`)).toBe(0);
    const later = freshTaskId();
    await a.schedule(later);
    busyStep.finish();
    // The queue is first in, first out: had the cancelled step stayed, it would run before `later`.
    expect((await onA.nth(2)).taskId).toBe(later);
  });

  it('skips an older step of a task that was scheduled again while it waited', async () => {
    const { runner: a, seen: onA } = await working({ concurrency: 1 });
    const busy = freshTaskId();
    await a.schedule(busy);
    const busyStep = await onA.nth(1);
    const taskId = freshTaskId();
    await a.schedule(taskId);
    await a.schedule(taskId);
    const later = freshTaskId();
    await a.schedule(later);
    busyStep.finish();
    (await onA.nth(2)).finish();
    await onA.nth(3);
    expect(onA.steps.map((step) => step.taskId)).toEqual([busy, taskId, later]);
  });

  it('runs to completion on B a step whose worker process was killed mid-step', async () => {
    const queueName = freshQueue();
    const worker = spawnStuckWorker(redis.port, queueName);
    try {
      await worker.printed('ready');
      const taskId = freshTaskId();
      await producer(queueName).schedule(taskId);
      await worker.printed(`started ${taskId}`);
      worker.process.kill('SIGKILL');

      const onB = recordingWork();
      const b = runner({ queueName });
      let completed!: () => void;
      const completion = new Promise<void>((done) => (completed = done));
      b.attach(async (id, signal) => {
        await onB.work(id, signal).catch(() => undefined);
        completed();
      });
      // Picked up once the dead worker's lock lapsed (1 s here): waiting at most half of the
      // 30 s default lock, so a runner that ignored lockDurationMs fails here.
      const step = await onB.nth(1, 15_000);
      expect(step.taskId).toBe(taskId);
      step.finish();
      await completion;
      // Completed and removed: the step is not left to run a third time.
      await stepRemoved(queueName, taskId);
      expect(await client.exists(`bull:${queueName}:${taskId}.1`)).toBe(0);
      expect(await client.zcard(`bull:${queueName}:failed`)).toBe(0);
    } finally {
      worker.process.kill('SIGKILL');
    }
  }, 60_000);
});

describe('BullMqTaskRunner, fail-safe', () => {
  it('rejects a schedule while Redis is down, and schedules again once it is back', async () => {
    const queueName = freshQueue();
    const { runner: a, seen } = await working({ queueName });
    await redis.stop();
    try {
      await expect(a.schedule(freshTaskId())).rejects.toThrow();
    } finally {
      await redis.start();
    }
    const taskId = freshTaskId();
    await a.schedule(taskId);
    expect((await seen.nth(1, 20_000)).taskId).toBe(taskId);
    // Cancels are heard again too: the subscriber re-subscribed after reconnecting.
    await producer(queueName).cancel(taskId);
    await aborted(seen.steps[0].signal);
  }, 40_000);

  it('catches up, once its subscriber is back, on a cancel published while it was away', async () => {
    const queueName = freshQueue();
    const { seen } = await working({ queueName });
    const b = producer(queueName);
    const taskId = freshTaskId();
    await b.schedule(taskId);
    const step = await seen.nth(1);
    await client.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    // Before the subscriber reconnects (ioredis waits at least 50 ms): nobody hears the message.
    await b.cancel(taskId);
    await aborted(step.signal);
  });

  it('ignores malformed messages on its cancel channel', async () => {
    const queueName = freshQueue();
    const { runner: a, seen } = await working({ queueName });
    const taskId = freshTaskId();
    await a.schedule(taskId);
    const step = await seen.nth(1);
    const channel = `bull:${queueName}:nestjs-mcp:abort`;
    for (const message of [taskId, `x ${taskId}`, `9 ${taskId}:x`, `9 ${'a'.repeat(200)}`, ''])
      await client.publish(channel, message);
    // A well-formed cancel published after them is heard, so they were read before it.
    const other = freshTaskId();
    await a.schedule(other);
    const otherStep = await seen.nth(2);
    await client.publish(channel, `99 ${other}`);
    await aborted(otherStep.signal);
    expect(step.signal.aborted).toBe(false);
  });

  it('closes the connections it made (its duplicates of the client)', async () => {
    const clientIds = async () =>
      new Set(String(await client.call('CLIENT', 'LIST')).match(/(?<=^id=)\d+/gm));
    const before = await clientIds();
    const made = async () => [...(await clientIds())].filter((id) => !before.has(id));
    const own = new BullMqTaskRunner(client, { queueName: freshQueue() });
    const seen = recordingWork();
    own.attach(seen.work);
    await own.whenReady();
    const taskId = freshTaskId();
    await own.schedule(taskId);
    expect((await seen.nth(1)).taskId).toBe(taskId);
    expect((await made()).length).toBeGreaterThan(0);
    await own.close();
    const left = await until(made, {
      done: (ids) => ids.length === 0,
      what: 'the connections the runner made to close',
      everyMs: 50,
    });
    expect(left).toEqual([]);
  });

  it('never closes the client it was given', async () => {
    const { runner: a } = await working();
    await a.close();
    expect(await client.ping()).toBe('PONG');
  });

  it('refuses task ids outside the module alphabet before reaching Redis', async () => {
    const queueName = freshQueue();
    const a = producer(queueName);
    await expect(a.schedule('a:b')).rejects.toThrow(RangeError);
    await expect(a.schedule('x'.repeat(129))).rejects.toThrow(RangeError);
    expect(await client.keys(`bull:${queueName}:*`)).toEqual([]);
  });

  it('refuses bad options at construction', () => {
    expect(() => new BullMqTaskRunner({} as never)).toThrow(TypeError);
    expect(() => new BullMqTaskRunner(client, { concurrency: 0 })).toThrow(RangeError);
    expect(() => new BullMqTaskRunner(client, { queueName: 'a:b' })).toThrow(RangeError);
    expect(() => new BullMqTaskRunner(client, { lockDurationMs: 1.5 })).toThrow(RangeError);
  });

  it('names the package to install when an optional peer is missing', () => {
    expect(() => loadOptionalPeer('nestjs-mcp-no-such-peer', 'BullMqTaskRunner')).toThrow(
      'BullMqTaskRunner needs the "nestjs-mcp-no-such-peer" package: npm install nestjs-mcp-no-such-peer',
    );
  });
});

interface StuckWorker {
  readonly process: ChildProcess;
  printed(line: string): Promise<void>;
}

/** test/e2e/ext/tasks/bullmq-stuck-worker.ts in its own Node process. */
function spawnStuckWorker(port: number, queueName: string): StuckWorker {
  const root = resolve(__dirname, '../../../..');
  const child = spawn(
    process.execPath,
    [
      '-r',
      'ts-node/register/transpile-only',
      join(root, 'test/e2e/ext/tasks/bullmq-stuck-worker.ts'),
      String(port),
      queueName,
    ],
    { cwd: root, env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json' }, stdio: 'pipe' },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    process: child,
    async printed(line) {
      await until(
        () => {
          if (child.exitCode !== null)
            throw new Error(`the worker process exited before printing "${line}"`);
          return output.split('\n').includes(line);
        },
        { what: `the worker process to print "${line}"`, timeoutMs: 30_000, everyMs: 50 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${output}`);
      });
    },
  };
}
