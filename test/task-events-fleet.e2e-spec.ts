import Redis from 'ioredis';
import { CapturingLogger, newKeyring } from './fixtures/sample-app';
import { GatedTaskToolsModule, StepGates } from './fixtures/task-events.fixtures';
import { tasksApp } from './fixtures/tasks.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from './utils/bootstrap';
import { freshId, rawRound, rpcBody, rpcHeaders, type RawRoundResponse } from './utils/mcp';
import { startRedisServer, type RedisServerHandle } from './utils/redis-server';
import { postForStream, SseReader, type OpenStream } from './utils/sse';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
const PREFIX = 'fleet:';
const CHANNEL = `${PREFIX}task-events`;
const INTERNAL_ERROR = { code: -32603, message: 'Internal error' };
const APPROVE = { approve: { action: 'accept', content: { ok: true } } };
type Body = Record<string, unknown>;

describe.each(ADAPTERS)(
  'task status notifications across two instances sharing Redis, over %s',
  (adapter) => {
    let redis: RedisServerHandle;
    /** The test's own view of Redis, as an operator's redis-cli would have. */
    let inspector: Redis;
    let a: TestServer;
    let b: TestServer;
    const logger = new CapturingLogger();
    const streams: OpenStream[] = [];

    beforeAll(async () => {
      redis = await startRedisServer();
      inspector = new Redis(redis.url);
      const keyring = newKeyring(['k1']);
      // Nothing but the `redis` option: the store and the notifications follow from it.
      const app = () =>
        startTestServer(
          adapter,
          {
            imports: [
              tasksApp({
                keyring: { active: keyring.active, keys: { ...keyring.keys } },
                redis: { url: redis.url, keyPrefix: PREFIX },
              }),
              GatedTaskToolsModule,
            ],
          },
          '/mcp',
          { logger },
        );
      a = await app();
      b = await app();
      await bothSubscribed();
    });

    afterAll(async () => {
      for (const stream of streams) stream.close();
      await a?.close();
      await b?.close();
      await inspector?.quit();
      await redis?.close();
    });

    /** Both instances listen on the task events channel (after startup, after a Redis restart). */
    async function bothSubscribed(): Promise<void> {
      for (let attempt = 0; attempt < 100; attempt++) {
        const [, count] = (await inspector.pubsub('NUMSUB', CHANNEL)) as [string, number];
        if (Number(count) === 2) return;
        await new Promise((done) => setTimeout(done, 50));
      }
      throw new Error('the instances did not subscribe to the task events channel');
    }

    const send = (server: TestServer, method: string, params: Body, user = 'alice') =>
      rawRound(server.url, method, params, { capabilities: TASKS, headers: { 'x-user': user } });

    async function create(server: TestServer, name: string, args: Body, user = 'alice') {
      const response = await send(server, 'tools/call', { name, arguments: args }, user);
      const taskId = (response.body.result as { taskId?: unknown } | undefined)?.taskId;
      if (typeof taskId !== 'string') throw new Error(`no task: ${response.text}`);
      return taskId;
    }

    async function listen(server: TestServer, user: string, taskIds: string[]): Promise<SseReader> {
      const stream = await postForStream(
        server.url,
        { ...rpcHeaders('subscriptions/listen'), 'x-user': user },
        rpcBody('subscriptions/listen', { notifications: { taskIds } }, freshId(), TASKS),
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

    it("tells a stream on A each status change made through B, and another caller's stream on A none of them", async () => {
      const key = `${adapter}-1`;
      const taskId = await create(b, 'gated_approval', { key });
      const bobsTask = await create(b, 'gated_approval', { key: `${key}-bob` }, 'bob');
      const alice = await listen(a, 'alice', [taskId]);
      // Bob names Alice's task too; all he may hear of is his own.
      const bob = await listen(a, 'bob', [taskId, bobsTask]);

      b.app.get(StepGates).open(`${key}:ask`);
      expect(await firstChange(alice)).toMatchObject({
        taskId,
        status: 'input_required',
        inputRequests: { approve: { method: 'elicitation/create' } },
      });
      expect(
        (await send(b, 'tasks/update', { taskId, inputResponses: APPROVE })).body.result,
      ).toMatchObject({ resultType: 'complete' });
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'working' });
      b.app.get(StepGates).open(`${key}:finish`);
      const completed = await nextTask(alice);
      expect(completed).toMatchObject({
        taskId,
        status: 'completed',
        result: { content: [{ type: 'text', text: 'approved' }] },
      });
      expect(completed).not.toHaveProperty('requestState');

      b.app.get(StepGates).open(`${key}-bob:ask`);
      expect(await firstChange(bob)).toMatchObject({ taskId: bobsTask, status: 'input_required' });
    });

    it('tells a stream on A that B cancelled the task', async () => {
      const taskId = await create(b, 'wait_for_cancel', {});
      const alice = await listen(a, 'alice', [taskId]);
      expect((await send(b, 'tasks/cancel', { taskId })).body.result).toMatchObject({
        resultType: 'complete',
      });
      expect(await firstChange(alice)).toMatchObject({ taskId, status: 'cancelled' });
    });

    it('ignores forged and malformed messages on the channel: a stream only ever reports what the store holds', async () => {
      const key = `${adapter}-forged`;
      const taskId = await create(b, 'gated_approval', { key });
      const alice = await listen(a, 'alice', [taskId]);
      b.app.get(StepGates).open(`${key}:ask`);
      expect(await firstChange(alice)).toMatchObject({ taskId, status: 'input_required' });
      for (const message of [
        `someone ${taskId} 999`,
        `${taskId} 2`,
        `someone ${taskId} -1`,
        `someone ${taskId} 1e3`,
        `someone ${'x'.repeat(300)} 3`,
        'x'.repeat(100_000),
        '{"taskId":"x","status":"completed"}',
      ])
        await inspector.publish(CHANNEL, message);
      await send(b, 'tasks/update', { taskId, inputResponses: APPROVE });
      // The forged "version 999" made A re-read the task; unchanged, it was not reported again.
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'working' });
    });

    it('fails tasks/* closed with -32603 while Redis is down, keeps streams open, and recovers once Redis is back', async () => {
      const key = `${adapter}-outage`;
      const taskId = await create(b, 'gated_approval', { key });
      const alice = await listen(a, 'alice', [taskId]);
      b.app.get(StepGates).open(`${key}:ask`);
      expect(await firstChange(alice)).toMatchObject({ taskId, status: 'input_required' });
      // Kept aside to put back after the restart, as a Redis with persistence would have it.
      const stored = await inspector.hgetall(`${PREFIX}task:${taskId}`);
      const expiresAt = Date.now() + (await inspector.pttl(`${PREFIX}task:${taskId}`));
      const mark = logger.lines.length;

      await redis.stop();
      try {
        const answers: RawRoundResponse[] = [
          await send(a, 'tasks/get', { taskId }),
          await send(b, 'tasks/get', { taskId }),
          await send(b, 'tasks/update', { taskId, inputResponses: APPROVE }),
          await send(a, 'tasks/cancel', { taskId }),
          await send(a, 'tools/call', { name: 'gated_approval', arguments: { key: 'never' } }),
        ];
        for (const answer of answers) expect(answer.body.error).toEqual(INTERNAL_ERROR);
        const logged = logger.lines
          .slice(mark)
          .map((line) => line.text)
          .join('\n');
        expect(logged).toContain('A task could not be read (unavailable)');
        expect(logged).toContain('A task could not be created (unavailable)');
        expect(logged).not.toContain(taskId);
        expect(logged).not.toMatch(/\n\s+at /);
      } finally {
        await redis.start();
      }
      await inspector.hset(`${PREFIX}task:${taskId}`, stored);
      await inspector.pexpireat(`${PREFIX}task:${taskId}`, expiresAt);
      for (let attempt = 0; attempt < 100; attempt++) {
        const [onA, onB] = [
          await send(a, 'tasks/get', { taskId }),
          await send(b, 'tasks/get', { taskId }),
        ];
        if (onA.body.result && onB.body.result) break;
        await new Promise((done) => setTimeout(done, 100));
      }
      await bothSubscribed();

      // The stream opened before the outage is still there, and hears what B does now.
      await send(b, 'tasks/update', { taskId, inputResponses: APPROVE });
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'working' });
      b.app.get(StepGates).open(`${key}:finish`);
      expect(await nextTask(alice)).toMatchObject({ taskId, status: 'completed' });
    });
  },
);
