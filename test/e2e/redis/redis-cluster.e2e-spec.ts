import { Module } from '@nestjs/common';
import type { Cluster } from 'ioredis';
import { McpModule, McpNotifier } from '../../../src/index';
import { KeyringManager } from '../../../src/keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../../src/keyring/record-integrity';
import {
  BullMqTaskRunner,
  RedisConsumedStateStore,
  RedisSessionStore,
  RedisStateHandleRepository,
  RedisTaskStore,
} from '../../../src/entry/redis';
import {
  describeConsumedStateStoreContract,
  describeSessionStoreContract,
  describeStateHandleRepositoryContract,
  describeTaskRunnerContract,
  describeTaskStoreContract,
} from '../../../src/entry/testing';
import type { TaskRunner } from '../../../src/entry/tasks';

import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import {
  askToDelete,
  confirmDelete,
  OneTimeStateFixturesModule,
  deletionsOn,
} from '../request-state/one-time-state.fixtures';
import { startTestServer, type TestServer } from '../../utils/bootstrap';
import { expectExactlyOneAccepted, INVALID_STATE } from '../../utils/expect-rpc';
import { connectClient, freshId, rawRound, rawToolCall, resultText } from '../../utils/mcp';
import { SseReader } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { startRedisCluster, type RedisClusterHandle } from '../../utils/redis-cluster';
import { until } from '../../utils/wait';
import { APPROVE, approveExpenseRound, startSlowComputeTask } from '../../utils/sample-calls';

const APP_CLUSTER = Symbol('APP_CLUSTER');

let cluster: RedisClusterHandle;
let client: Cluster;
let prefixes = 0;
/** A fresh hash-tagged prefix: each case's keys apart from the others', in one slot of their own. */
const tagged = (name: string) => `{${name}-${++prefixes}}:`;

beforeAll(async () => {
  cluster = await startRedisCluster();
  client = cluster.client();
  await until(() => client.status === 'ready', { what: 'the cluster client to be ready' });
}, 60_000);

afterAll(async () => {
  await cluster?.close();
});

/** Every master of the cluster, each through a connection of its own. */
const masters = () => client.nodes('master');

/** `CONFIG SET` on every master: what an operator (or a full cluster) does to all of them at once. */
async function configOnMasters(name: string, value: string): Promise<void> {
  await Promise.all(masters().map((node) => node.config('SET', name, value)));
}

describeConsumedStateStoreContract(
  'RedisConsumedStateStore on a Redis Cluster',
  async () => ({
    store: new RedisConsumedStateStore(client, { keyPrefix: tagged('contract') }),
    // A cluster out of memory refuses every write, as each master would.
    breakIt: async () => {
      await configOnMasters('maxmemory-policy', 'noeviction');
      await configOnMasters('maxmemory', '1');
    },
    repair: () => configOnMasters('maxmemory', '0'),
    close: async () => undefined,
  }),
  async (capacity) => ({
    store: new RedisConsumedStateStore(client, { keyPrefix: tagged('bounded'), ...capacity }),
    close: async () => undefined,
  }),
);

describeStateHandleRepositoryContract(
  'RedisStateHandleRepository on a Redis Cluster',
  async () => ({
    repository: new RedisStateHandleRepository(client, { keyPrefix: tagged('handles') }),
    close: async () => undefined,
  }),
  async (capacity) => ({
    repository: new RedisStateHandleRepository(client, {
      keyPrefix: tagged('bounded-handles'),
      ...capacity,
    }),
    close: async () => undefined,
  }),
);

describeTaskStoreContract(
  'RedisTaskStore on a Redis Cluster',
  () => new RedisTaskStore(client),
  (capacity) => new RedisTaskStore(client, { keyPrefix: tagged('tasks'), ...capacity }),
);

const integrity = new KeyringRecordIntegrity(
  new KeyringManager({ keyring: { active: 'k1', keys: { k1: Buffer.alloc(32, 7) } } }),
);
describeSessionStoreContract(
  'RedisSessionStore on a Redis Cluster',
  () => new RedisSessionStore(client, { keyPrefix: tagged('sessions'), integrity }),
);

const runners: TaskRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
});
describeTaskRunnerContract('BullMqTaskRunner on a Redis Cluster', () => {
  const runner = new BullMqTaskRunner(client, {
    queueName: `cluster-contract-${++prefixes}`,
    lockDurationMs: 1_000,
    stalledIntervalMs: 500,
  });
  runners.push(runner);
  return runner;
});

describe('the Redis adapters on a Redis Cluster', () => {
  it('refuse a key prefix without a hash tag, naming one that would do', () => {
    expect(() => new RedisConsumedStateStore(client, { keyPrefix: 'billing:' })).toThrow(
      'RedisConsumedStateStore: on a Redis Cluster the keyPrefix needs a hash tag, e.g. "{billing}:"',
    );
    expect(() => new RedisTaskStore(client, { keyPrefix: 'app-a:task:' })).toThrow(
      '"{app-a:task}:"',
    );
    expect(() => new BullMqTaskRunner(client, { prefix: 'bull' })).toThrow('"{bull}"');
  });

  it('give their default prefixes a hash tag: every key of a store in one slot', async () => {
    const store = new RedisConsumedStateStore(client);
    for (let index = 0; index < 20; index++)
      expect(await store.consume(`default-${index}`, Date.now() + 60_000, `owner-${index}`)).toBe(
        true,
      );
    const keys = (await Promise.all(masters().map((node) => node.keys('{nestjs-mcp}:*')))).filter(
      (found) => found.length > 0,
    );
    // All on one master, and more than the 20 records: the shares' counters are beside them.
    expect(keys).toHaveLength(1);
    expect(keys[0].length).toBeGreaterThan(20);
  });
});

describe('a fleet of two instances on a Redis Cluster', () => {
  const keyring = newKeyring(['k1']);
  const logger = new CapturingLogger();
  /** `redis: { cluster: { nodes } }`: the module owns its cluster client. */
  let first: TestServer;
  /** `redis: { client }`: the app's own ioredis Cluster, from DI. */
  let second: TestServer;

  beforeAll(async () => {
    const appCluster = cluster.client();
    @Module({ providers: [{ provide: APP_CLUSTER, useValue: appCluster }], exports: [APP_CLUSTER] })
    class AppClusterModule {}
    const keys = { active: keyring.active, keys: keyring.keys };
    first = await startTestServer(
      'express',
      {
        imports: [
          McpModule.forRoot({ keyring: keys, redis: { cluster: { nodes: cluster.nodes } } }),
          OneTimeStateFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
    second = await startTestServer(
      'express',
      {
        imports: [
          McpModule.forRootAsync({
            imports: [AppClusterModule],
            inject: [APP_CLUSTER],
            useFactory: (client: Cluster) => ({ keyring: keys, redis: { client } }),
          }),
          OneTimeStateFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
  }, 60_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  const deletions = () => deletionsOn(first, second);

  it('says at startup that the key prefix was given a hash tag', () => {
    const said = logger.lines.filter((line) =>
      line.text.includes('On Redis Cluster the key prefix "nestjs-mcp:" becomes "{nestjs-mcp}:"'),
    );
    expect(said).toHaveLength(2);
  });

  it("delivers one instance's list change to the other's listen stream (pub/sub on the cluster)", async () => {
    const response = await openListenStream(second.url, { toolsListChanged: true });
    try {
      const frames = new SseReader(response.body);
      expect((await frames.next()).method).toBe('notifications/subscriptions/acknowledged');
      // The other instance's subscriber may still be joining the channel: announce until heard.
      const heard = frames.next();
      const announcing = setInterval(() => first.app.get(McpNotifier).toolsChanged(), 100);
      try {
        expect((await heard).method).toBe('notifications/tools/list_changed');
      } finally {
        clearInterval(announcing);
      }
    } finally {
      response.close();
    }
  });

  it('runs the handler once for 50 concurrent retries of one state spread over both; 49 get -32602', async () => {
    const state = await askToDelete(first, 'once_delete');
    const before = deletions();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        confirmDelete(index % 2 ? second : first, 'once_delete', state),
      ),
    );
    expectExactlyOneAccepted(responses, 'Deleted /srv/report.pdf');
    expect(deletions()).toBe(before + 1);
    expect((await confirmDelete(first, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
  });
});

describe('the sample app with MCP_STORE=redis on a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const FORM = { elicitation: {} };
  const TRANSFER = { amount: '7.00', to: 'carol' };
  const logger = new CapturingLogger();
  let east: TestServer;
  let west: TestServer;

  beforeAll(async () => {
    const env = {
      MCP_KEYRING: newKeyring(['k1']).json,
      MCP_STORE: 'redis',
      REDIS_CLUSTER_NODES: cluster.nodes.join(','),
    };
    east = await startSampleApp('express', env, { logger });
    west = await startSampleApp('fastify', env, { logger });
  }, 60_000);

  afterAll(async () => {
    await east?.close();
    await west?.close();
    // Not one command the cluster refused for its slots, on either instance.
    expect(logger.lines.map((line) => line.text).join('\n')).not.toMatch(/CROSSSLOT|MOVED|ASK\b/);
  });

  /** As a client with tasks and form elicitation (export_report asks in a form). */
  const tasksCall = (server: TestServer, method: string, params: Record<string, unknown>) =>
    rawRound(server.url, method, params, {
      capabilities: { ...TASKS, elicitation: { form: {} } },
    });

  it('accepts an approval once across instances', async () => {
    const asked = await rawToolCall(east.url, 'transfer_funds', TRANSFER, { capabilities: FORM });
    const retry = (server: TestServer) =>
      rawToolCall(server.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        id: freshId(),
        requestState: asked.body.result?.requestState,
        inputResponses: { approval: { action: 'accept', content: { approve: true } } },
      });
    expect(resultText(await retry(west))).toBe('Transferred 7.00 to carol');
    expect((await retry(east)).body.error).toEqual(INVALID_STATE);
  });

  it('redeems an approve_expense handle on the other instance, once', async () => {
    const expense = { amount: '42.00', description: 'Taxi' };
    const call = (server: TestServer, requestState?: string, inputResponses?: unknown) =>
      approveExpenseRound(server.url, 'alice', expense, requestState, inputResponses);
    const handle = (await call(east)).body.result?.requestState;
    expect(resultText(await call(west, handle, APPROVE))).toMatch(/approved: 42\.00/);
    expect((await call(east, handle, APPROVE)).body.error).toEqual(INVALID_STATE);
  });

  it('onboards a user through the official client (ctx.elicit replayed from the ledger)', async () => {
    const client = await connectClient(
      west.url,
      {},
      {
        capabilities: FORM,
        setup: (c) =>
          c.setRequestHandler('elicitation/create', (request) => {
            const naming = (request.params as { message: string }).message.startsWith(
              'What should we call you',
            );
            const content: Record<string, string> = naming ? { name: 'Grace' } : { plan: 'team' };
            return { action: 'accept' as const, content };
          }),
      },
    );
    try {
      const result = await client.callTool({ name: 'onboard_user', arguments: {} });
      expect(result.content).toEqual([
        { type: 'text', text: 'Welcome, Grace! You are on the team plan.' },
      ]);
    } finally {
      await client.close();
    }
  });

  it('runs export_report as a task: created on one instance, asked and answered on the other', async () => {
    const created = await tasksCall(east, 'tools/call', {
      name: 'export_report',
      arguments: { dataset: 'customers', rows: 400 },
    });
    const taskId = (created.body.result as { taskId: string }).taskId;
    const status = (wanted: string) =>
      until(
        async () =>
          (await tasksCall(west, 'tasks/get', { taskId })).body.result as {
            status: string;
            result?: unknown;
          },
        { done: (task) => task.status === wanted, what: `the task to be ${wanted}`, everyMs: 50 },
      );
    await status('input_required');
    await tasksCall(west, 'tasks/update', {
      taskId,
      inputResponses: { include_personal: { action: 'accept', content: { include: true } } },
    });
    expect((await status('completed')).result).toMatchObject({
      content: [
        {
          type: 'text',
          text: 'Exported 400 of 400 rows of customers to reports/customers.csv',
        },
      ],
    });
  });

  it('runs a task created on one instance on the BullMQ queue, and reports it on the other', async () => {
    const taskId = await startSlowComputeTask(east.url, { seconds: 1, label: 'cluster' });
    const task = await until(
      async () =>
        (await rawRound(west.url, 'tasks/get', { taskId }, { capabilities: TASKS })).body.result as
          { status?: string; result?: unknown } | undefined,
      { done: (polled) => polled?.status !== 'working', what: 'the task to finish', everyMs: 100 },
    );
    expect(task).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Computed cluster after 1 s' }] },
    });
  });
});
