import Redis from 'ioredis';
import { CapturingLogger, newKeyring } from '../../../fixtures/sample-app';
import { GatedTaskToolsModule, StepGates } from './task-events.fixtures';
import { MemoryTaskStore } from '../../../../src/entry/tasks';
import { tasksApp } from './tasks.fixtures';
import {
  ADAPTERS,
  startTestServer,
  type AdapterName,
  type TestServer,
} from '../../../utils/bootstrap';
import { rawRound, type RawRoundResponse } from '../../../utils/mcp';
import { startRedisServer, type RedisServerHandle } from '../../../utils/redis-server';
import { SseReader, type OpenStream } from '../../../utils/sse';
import { openListenStream } from '../../../utils/listen-stream';
import { until } from '../../../utils/wait';
import { STORE_UNAVAILABLE } from '../../../utils/expect-rpc';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
const PREFIX = 'fleet:';
const CHANNEL = `${PREFIX}fleet`;
const APPROVE = { approve: { action: 'accept', content: { ok: true } } };
type Body = Record<string, unknown>;

/** How many connections listen on the fleet channel (the instances' subscribers). */
async function subscribers(inspector: Redis, expected: number): Promise<void> {
  await until(
    async () => Number(((await inspector.pubsub('NUMSUB', CHANNEL)) as [string, number])[1]),
    {
      done: (count) => count === expected,
      what: `${expected} subscribers on the fleet channel`,
      everyMs: 50,
    },
  );
}

const sendAs = (server: TestServer, method: string, params: Body, user = 'alice') =>
  rawRound(server.url, method, params, { capabilities: TASKS, headers: { 'x-user': user } });

async function createTask(server: TestServer, name: string, args: Body, user = 'alice') {
  const response = await sendAs(server, 'tools/call', { name, arguments: args }, user);
  const taskId = (response.body.result as { taskId?: unknown } | undefined)?.taskId;
  if (typeof taskId !== 'string') throw new Error(`no task: ${response.text}`);
  return taskId;
}

/** Opens a listen stream following `taskIds` (kept in `streams`, to close) past its acknowledgement. */
async function listenTo(
  server: TestServer,
  user: string,
  taskIds: string[],
  streams: OpenStream[],
): Promise<SseReader> {
  const stream = await openListenStream(
    server.url,
    { taskIds },
    { headers: { 'x-user': user }, capabilities: TASKS },
  );
  streams.push(stream);
  expect(stream.status).toBe(200);
  const frames = new SseReader(stream.body);
  expect((await frames.next()).method).toBe('notifications/subscriptions/acknowledged');
  return frames;
}

async function nextTask(frames: SseReader): Promise<Body> {
  const frame = await frames.next(5_000);
  expect(frame.method).toBe('notifications/tasks');
  return frame.params as Body;
}

/**
 * The first change after a stream opened on a task created moments before: the creation's own
 * notification ('working') may still be on its way, and is then reported first.
 */
async function firstChange(frames: SseReader): Promise<Body> {
  const task = await nextTask(frames);
  return task.status === 'working' ? nextTask(frames) : task;
}

/** Two instances of the tasks app on a private Redis, and the test's own view of that Redis. */
interface Fleet {
  redis: RedisServerHandle;
  /** As an operator's redis-cli would see Redis. */
  inspector: Redis;
  a: TestServer;
  b: TestServer;
  readonly logger: CapturingLogger;
  /** Listen streams the tests opened, closed with the fleet. */
  readonly streams: OpenStream[];
}

/**
 * Starts the fleet before the enclosing describe's tests (both instances subscribed) and stops it
 * after them. `tasks` are further task options of both instances.
 */
function fleetOnRedis(adapter: AdapterName, tasks?: () => Record<string, unknown>): Fleet {
  const fleet = { logger: new CapturingLogger(), streams: [] as OpenStream[] } as Fleet;
  beforeAll(async () => {
    fleet.redis = await startRedisServer();
    fleet.inspector = new Redis(fleet.redis.url);
    const keyring = newKeyring(['k1']);
    const shared = tasks?.();
    const app = () =>
      startTestServer(
        adapter,
        {
          imports: [
            tasksApp({
              keyring: { active: keyring.active, keys: { ...keyring.keys } },
              redis: { url: fleet.redis.url, keyPrefix: PREFIX },
              ...(shared && { tasks: shared }),
            }),
            GatedTaskToolsModule,
          ],
        },
        '/mcp',
        { logger: fleet.logger },
      );
    fleet.a = await app();
    fleet.b = await app();
    await subscribers(fleet.inspector, 2);
  });
  afterAll(async () => {
    for (const stream of fleet.streams) stream.close();
    await fleet.a?.close();
    await fleet.b?.close();
    await fleet.inspector?.quit();
    await fleet.redis?.close();
  });
  return fleet;
}

describe.each(ADAPTERS)(
  'task status notifications across two instances sharing Redis, over %s',
  (adapter) => {
    // Nothing but the `redis` option: the store and the notifications follow from it.
    const fleet = fleetOnRedis(adapter);
    const { logger, streams } = fleet;

    /** A task created through B that asks for approval, followed by alice on A until it does. */
    async function parkedThroughB(key: string): Promise<{ taskId: string; alice: SseReader }> {
      const taskId = await createTask(fleet.b, 'gated_approval', { key });
      const alice = await listenTo(fleet.a, 'alice', [taskId], streams);
      fleet.b.app.get(StepGates).open(`${key}:ask`);
      expect(await firstChange(alice)).toMatchObject({ taskId, status: 'input_required' });
      return { taskId, alice };
    }

    it("tells a stream on A each status change made through B, and another caller's stream on A none of them", async () => {
      const key = `${adapter}-1`;
      const taskId = await createTask(fleet.b, 'gated_approval', { key });
      const bobsTask = await createTask(fleet.b, 'gated_approval', { key: `${key}-bob` }, 'bob');
      const alice = await listenTo(fleet.a, 'alice', [taskId], streams);
      // Bob names Alice's task too; all he may hear of is his own.
      const bob = await listenTo(fleet.a, 'bob', [taskId, bobsTask], streams);

      fleet.b.app.get(StepGates).open(`${key}:ask`);
      expect(await firstChange(alice)).toMatchObject({
        taskId,
        status: 'input_required',
        inputRequests: { approve: { method: 'elicitation/create' } },
      });
      expect(
        (await sendAs(fleet.b, 'tasks/update', { taskId, inputResponses: APPROVE })).body.result,
      ).toMatchObject({ resultType: 'complete' });
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'working' });
      fleet.b.app.get(StepGates).open(`${key}:finish`);
      const completed = await nextTask(alice);
      expect(completed).toMatchObject({
        taskId,
        status: 'completed',
        result: { content: [{ type: 'text', text: 'approved' }] },
      });
      expect(completed).not.toHaveProperty('requestState');

      fleet.b.app.get(StepGates).open(`${key}-bob:ask`);
      expect(await firstChange(bob)).toMatchObject({ taskId: bobsTask, status: 'input_required' });
    });

    it('tells a stream on A that B cancelled the task', async () => {
      const taskId = await createTask(fleet.b, 'wait_for_cancel', {});
      const alice = await listenTo(fleet.a, 'alice', [taskId], streams);
      expect((await sendAs(fleet.b, 'tasks/cancel', { taskId })).body.result).toMatchObject({
        resultType: 'complete',
      });
      expect(await firstChange(alice)).toMatchObject({ taskId, status: 'cancelled' });
    });

    it('ignores forged and malformed messages on the channel: a stream only ever reports what the store holds', async () => {
      const key = `${adapter}-forged`;
      const { taskId, alice } = await parkedThroughB(key);
      const json = (event: unknown) => JSON.stringify({ channel: 'tasks', event });
      const forgedTag = `azE.${'A'.repeat(43)}`;
      const mark = logger.lines.length;
      for (const message of [
        // The bus's own framing, untagged or with a tag of no keyring.
        `someone ${json({ taskId, version: 999 })}`,
        `someone ${forgedTag} ${json({ taskId, version: 999 })}`,
        `someone ${forgedTag} ${json({ taskId, version: 999, status: 'completed' })}`,
        `someone ${forgedTag} ${json({ taskId: 'x'.repeat(300), version: 3 })}`,
        `someone ${forgedTag} ${json({ taskId, version: 3, filler: 'x'.repeat(100_000) })}`,
        // The previous version's task events.
        `someone ${taskId} 999`,
        `someone ${taskId} 999 ${forgedTag}`,
        'x'.repeat(100_000),
        '{"taskId":"x","status":"completed"}',
      ])
        await fleet.inspector.publish(CHANNEL, message);
      await sendAs(fleet.b, 'tasks/update', { taskId, inputResponses: APPROVE });
      // None of them reached A's stream: the next thing it reports is what B did.
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'working' });
      const dropped = () =>
        logger.lines
          .slice(mark)
          .filter((line) =>
            line.text.includes(`A message on ${CHANNEL} is not one of the fleet's`),
          );
      // Once per instance for the lot: a PUBLISH loop cannot flood the log.
      await until(() => dropped().length >= 2, 'both instances to log the dropped messages');
      expect(dropped()).toHaveLength(2);
    });

    it('answers tasks/* with the retryable -32000 while Redis is down, keeps streams open, and recovers once Redis is back', async () => {
      const key = `${adapter}-outage`;
      const { taskId, alice } = await parkedThroughB(key);
      // Kept aside to put back after the restart, as a Redis with persistence would have it.
      const stored = await fleet.inspector.hgetall(`${PREFIX}task:${taskId}`);
      const expiresAt = Date.now() + (await fleet.inspector.pttl(`${PREFIX}task:${taskId}`));
      const mark = logger.lines.length;

      await fleet.redis.stop();
      try {
        const answers: RawRoundResponse[] = [
          await sendAs(fleet.a, 'tasks/get', { taskId }),
          await sendAs(fleet.b, 'tasks/get', { taskId }),
          await sendAs(fleet.b, 'tasks/update', { taskId, inputResponses: APPROVE }),
          await sendAs(fleet.a, 'tasks/cancel', { taskId }),
          await sendAs(fleet.a, 'tools/call', {
            name: 'gated_approval',
            arguments: { key: 'never' },
          }),
        ];
        for (const answer of answers) expect(answer.body.error).toEqual(STORE_UNAVAILABLE);
        const logged = logger.lines
          .slice(mark)
          .map((line) => line.text)
          .join('\n');
        // Once per instance, however many calls the outage refused there.
        expect(logged.match(/The task store is unavailable \(unavailable\)/g)).toHaveLength(2);
        expect(logged).not.toContain(taskId);
        expect(logged).not.toMatch(/\n\s+at /);
      } finally {
        await fleet.redis.start();
      }
      await fleet.inspector.hset(`${PREFIX}task:${taskId}`, stored);
      await fleet.inspector.pexpireat(`${PREFIX}task:${taskId}`, expiresAt);
      await until(
        async () =>
          (await sendAs(fleet.a, 'tasks/get', { taskId })).body.result !== undefined &&
          (await sendAs(fleet.b, 'tasks/get', { taskId })).body.result !== undefined,
        { what: 'both instances to read the task again', everyMs: 100 },
      );
      await subscribers(fleet.inspector, 2);

      // The stream opened before the outage is still there, and hears what B does now.
      await sendAs(fleet.b, 'tasks/update', { taskId, inputResponses: APPROVE });
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'working' });
      fleet.b.app.get(StepGates).open(`${key}:finish`);
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'completed' });
    });
  },
);

describe.each(ADAPTERS)(
  'task status notifications while Redis is out, with a task store of their own, over %s',
  (adapter) => {
    // Two instances sharing a store that is not Redis (one process here; a database in production).
    const fleet = fleetOnRedis(adapter, () => ({ store: new MemoryTaskStore() }));
    const { logger, streams } = fleet;

    it('keeps telling local streams, logs once per instance, and reports what it missed once Redis is back', async () => {
      const [onA, onB] = [`${adapter}-local-a`, `${adapter}-local-b`];
      const runsOnA = await createTask(fleet.a, 'gated_approval', { key: onA });
      const runsOnB = await createTask(fleet.b, 'gated_approval', { key: onB });
      const frames = await listenTo(fleet.a, 'alice', [runsOnA, runsOnB], streams);
      fleet.a.app.get(StepGates).open(`${onA}:ask`);
      fleet.b.app.get(StepGates).open(`${onB}:ask`);
      const parked = new Map<unknown, unknown>();
      while (parked.size < 2) {
        const task = await nextTask(frames);
        if (task.status !== 'working') parked.set(task.taskId, task.status);
      }
      expect(parked).toEqual(
        new Map([
          [runsOnA, 'input_required'],
          [runsOnB, 'input_required'],
        ]),
      );
      const mark = logger.lines.length;

      await fleet.redis.stop();
      try {
        await sendAs(fleet.a, 'tasks/update', { taskId: runsOnA, inputResponses: APPROVE });
        expect(await nextTask(frames)).toMatchObject({ taskId: runsOnA, status: 'working' });
        fleet.a.app.get(StepGates).open(`${onA}:finish`);
        expect(await nextTask(frames)).toMatchObject({ taskId: runsOnA, status: 'completed' });
        // B's changes cannot reach A meanwhile.
        await sendAs(fleet.b, 'tasks/update', { taskId: runsOnB, inputResponses: APPROVE });
        fleet.b.app.get(StepGates).open(`${onB}:finish`);
        await until(
          async () =>
            ((await sendAs(fleet.b, 'tasks/get', { taskId: runsOnB })).body.result as Body)
              .status === 'completed',
          `task ${runsOnB} to complete on B`,
        );
        const warnings = logger.lines
          .slice(mark)
          .filter((line) => line.text.includes('cannot reach the other instances'));
        expect(warnings.map((line) => line.text)).toEqual([
          expect.stringMatching(
            /^Task status notifications cannot reach the other instances \(unavailable\)/,
          ),
          expect.stringMatching(
            /^Task status notifications cannot reach the other instances \(unavailable\)/,
          ),
        ]);
      } finally {
        await fleet.redis.start();
      }
      await subscribers(fleet.inspector, 2);
      // A re-reads what it follows once it hears Redis again: B's task ended meanwhile.
      expect(await nextTask(frames)).toMatchObject({
        taskId: runsOnB,
        status: 'completed',
        result: { content: [{ type: 'text', text: 'approved' }] },
      });
    });
  },
);
