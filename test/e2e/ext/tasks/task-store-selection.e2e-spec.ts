import { Module, type ModuleMetadata } from '@nestjs/common';
import Redis from 'ioredis';
import { MemoryTaskStore, TaskStore } from '../../../../src/entry/tasks';
import { tasksApp } from './tasks.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';
import { startRedisServer, type RedisServerHandle } from '../../../utils/redis-server';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

describe.each(ADAPTERS)('which task store the module uses, over %s', (adapter) => {
  let redis: RedisServerHandle;
  let inspector: Redis;
  let server: TestServer | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    inspector = new Redis(redis.url);
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  afterAll(async () => {
    await inspector?.quit();
    await redis?.close();
  });

  async function createTask(imports: ModuleMetadata['imports']): Promise<string> {
    server = await startTestServer(adapter, { imports });
    const created = await rawRound(
      server.url,
      'tools/call',
      { name: 'count_to', arguments: { n: 1 } },
      { capabilities: TASKS },
    );
    return (created.body.result as { taskId: string }).taskId;
  }

  it('keeps tasks in Redis under <keyPrefix>task: when only the redis option is set', async () => {
    const taskId = await createTask([tasksApp({ redis: { url: redis.url, keyPrefix: 'sel:' } })]);
    expect(JSON.parse(String(await inspector.hget(`sel:task:${taskId}`, 'd')))).toMatchObject({
      taskId,
      status: expect.any(String),
    });
  });

  it('uses the tasks.store option over Redis', async () => {
    const store = new MemoryTaskStore();
    const taskId = await createTask([
      tasksApp({ redis: { url: redis.url, keyPrefix: 'sel:' }, tasks: { store } }),
    ]);
    expect(await store.get(taskId)).toMatchObject({ taskId });
    expect(await inspector.exists(`sel:task:${taskId}`)).toBe(0);
  });

  it('uses a TaskStore the application provides over Redis', async () => {
    const store = new MemoryTaskStore();
    @Module({ providers: [{ provide: TaskStore, useValue: store }] })
    class AppStoreModule {}
    const taskId = await createTask([
      tasksApp({ redis: { url: redis.url, keyPrefix: 'sel:' } }),
      AppStoreModule,
    ]);
    expect(await store.get(taskId)).toMatchObject({ taskId });
    expect(await inspector.exists(`sel:task:${taskId}`)).toBe(0);
  });
});
