import Redis from 'ioredis';
import { RedisTaskStore } from '../../../../src/entry/redis';
import { describeTaskStoreContract, createTestTaskRecord } from '../../../../src/entry/testing';
import { newKeyring } from '../../../fixtures/sample-app';
import { TaskProbe, tasksApp } from './tasks.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';

import { serverForSuite } from '../../../utils/suite-server';
import { SuiteScope } from '../../../utils/suite-resource';
import { redisForSuite } from '../../../utils/redis-suite';

const { server: redis, client } = redisForSuite();

let bounded = 0;
describeTaskStoreContract(
  'RedisTaskStore',
  () => new RedisTaskStore(client),
  (capacity) => new RedisTaskStore(client, { keyPrefix: `bounded-${bounded++}:`, ...capacity }),
);

describe('RedisTaskStore', () => {
  it('keeps each task under its prefix, expiring in Redis when the task does', async () => {
    const store = new RedisTaskStore(client, { keyPrefix: 'app-a:' });
    const created = Date.now();
    await store.create(createTestTaskRecord('prefixed', 5_000));
    const ttl = Number(await client.pttl('app-a:prefixed'));
    // The task's time left, less what has passed since it was made (and a millisecond of rounding).
    expect(ttl).toBeGreaterThanOrEqual(5_000 - (Date.now() - created) - 1);
    expect(ttl).toBeLessThanOrEqual(5_000);
    expect(
      await new RedisTaskStore(client, { keyPrefix: 'app-b:' }).get('prefixed'),
    ).toBeUndefined();
  });

  it('serves a task created through one client to another (two instances of a fleet)', async () => {
    const other = new Redis(redis.port, '127.0.0.1');
    try {
      const task = createTestTaskRecord('shared');
      await new RedisTaskStore(client).create(task);
      const elsewhere = new RedisTaskStore(other);
      expect(await elsewhere.get('shared')).toEqual(task);
      expect(await elsewhere.replace({ ...task, version: 2, status: 'cancelled' }, 1)).toBe(true);
      expect((await new RedisTaskStore(client).get('shared'))?.status).toBe('cancelled');
    } finally {
      other.disconnect();
    }
  });
});

describe.each(ADAPTERS)('tasks kept in Redis over %s', (adapter) => {
  let server: TestServer;
  const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };
  const send = (method: string, params: Record<string, unknown>) =>
    rawRound(server.url, method, params, { capabilities, headers: { 'x-user': 'alice' } });

  beforeAll(async () => {
    server = await startTestServer(adapter, {
      imports: [tasksApp({ tasks: { store: new RedisTaskStore(client, { keyPrefix: adapter }) } })],
    });
  });

  afterAll(() => server?.close());

  it('parks, takes the answers and completes with every state write in Redis', async () => {
    const created = await send('tools/call', {
      name: 'approve_payment',
      arguments: { amount: '7' },
    });
    const taskId = (created.body.result as { taskId: string }).taskId;
    let task: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && task.status !== 'input_required'; attempt++)
      task = (await send('tasks/get', { taskId })).body.result as Record<string, unknown>;
    expect(JSON.parse(String(await client.hget(`${adapter}${taskId}`, 'd'))).status).toBe(
      'input_required',
    );
    await send('tasks/update', {
      taskId,
      inputResponses: {
        approve: { action: 'accept', content: { ok: true } },
        note: { action: 'accept', content: { text: 'via redis' } },
      },
    });
    for (let attempt = 0; attempt < 100 && task.status !== 'completed'; attempt++)
      task = (await send('tasks/get', { taskId })).body.result as Record<string, unknown>;
    expect(task.result).toMatchObject({
      content: [{ type: 'text', text: expect.stringMatching(/^Paid 7 .* with note "via redis"$/) }],
    });
  });
});

describe('two instances sharing tasks in Redis', () => {
  const keyring = newKeyring(['k1']);
  const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };
  const options = () => ({
    keyring: { active: keyring.active, keys: { ...keyring.keys } },
    tasks: { store: new RedisTaskStore(client, { keyPrefix: 'fleet:' }) },
  });
  const scope = new SuiteScope();
  const a = serverForSuite(
    () => startTestServer('express', { imports: [tasksApp(options())] }),
    scope,
  );
  const b = serverForSuite(
    () => startTestServer('fastify', { imports: [tasksApp(options())] }),
    scope,
  );

  const send = (server: TestServer, method: string, params: Record<string, unknown>) =>
    rawRound(server.url, method, params, { capabilities, headers: { 'x-user': 'alice' } });

  it('resumes on B a task created on A, from the state A sealed, and A sees it complete', async () => {
    const created = await send(a, 'tools/call', {
      name: 'approve_payment',
      arguments: { amount: '42.00' },
    });
    const taskId = (created.body.result as { taskId: string }).taskId;
    let status: unknown;
    for (let attempt = 0; attempt < 100 && status !== 'input_required'; attempt++)
      status = ((await send(b, 'tasks/get', { taskId })).body.result as { status: string }).status;
    expect(status).toBe('input_required');
    const runsOnB = b.app.get(TaskProbe).runs;
    await send(b, 'tasks/update', {
      taskId,
      inputResponses: {
        approve: { action: 'accept', content: { ok: true } },
        note: { action: 'accept', content: { text: 'from B' } },
      },
    });
    let task: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && task.status !== 'completed'; attempt++)
      task = (await send(a, 'tasks/get', { taskId })).body.result as Record<string, unknown>;
    expect(task.result).toMatchObject({
      content: [
        { text: expect.stringMatching(/^Paid 42\.00 \(ref-[0-9a-f]{6}\) with note "from B"$/) },
      ],
    });
    expect(b.app.get(TaskProbe).runs).toBe(runsOnB + 1);
  });
});
