import { newKeyring } from '../../fixtures/sample-app';
import { freshId, rawRound, rawToolCall, resultText } from '../../utils/mcp';
import { startRedisServer, type RedisServerHandle } from '../../utils/redis-server';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../utils/round-robin-proxy';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
} from '../../utils/sample-process';
import { until } from '../../utils/wait';

const FORM = { elicitation: {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const APPROVE = { approval: { action: 'accept', content: { approve: true } } };

/**
 * A rolling restart under load, as Kubernetes does one: two sample instances on Redis behind a
 * round-robin balancer with no affinity that follows readiness; each instance in turn is replaced
 * (a new one started, then the old one sent SIGTERM) while flow and task clients keep going.
 */
describe('the sample app through rolling restarts behind a balancer', () => {
  let redis: RedisServerHandle;
  let proxy: RoundRobinProxy;
  const running = new Set<SampleProcess>();
  let env: Parameters<typeof startSampleProcess>[1];

  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startRoundRobinProxy();
    await ensureSampleBuilt();
    env = {
      MCP_ADMIN_TOKEN: 'rolling-admin-token',
      MCP_KEYRING: newKeyring(['k1']).json,
      MCP_STORE: 'redis',
      REDIS_URL: redis.url,
      MCP_TASK_LOCK_MS: '1000',
      // A few of the balancer's probes (every 50 ms) to notice readiness is down.
      MCP_SHUTDOWN_DRAIN_DELAY_MS: '500',
    };
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...running].map((instance) => instance.kill()));
    await proxy?.close();
    await redis?.close();
  });

  const originOf = (instance: SampleProcess) => instance.url.origin;

  async function startInstance(adapter: 'express' | 'fastify'): Promise<SampleProcess> {
    const instance = await startSampleProcess(adapter, env);
    running.add(instance);
    proxy.add(originOf(instance));
    await until(() => proxy.routesTo(originOf(instance)), {
      what: 'the balancer to route to the new instance',
    });
    return instance;
  }

  async function replace(old: SampleProcess, adapter: 'express' | 'fastify') {
    const fresh = await startInstance(adapter);
    const ended = await old.terminate();
    running.delete(old);
    proxy.remove(originOf(old));
    expect(ended).toEqual({ code: null, signal: 'SIGTERM' });
    expect(old.log()).toMatch(/Drained in \d+ ms/);
    return fresh;
  }

  it('answers every request of every client, completes every flow and every task', async () => {
    let a = await startInstance('express');
    let b = await startInstance('fastify');
    let stop = false;
    const outcomes = { flows: 0, tasks: 0, failures: [] as string[] };

    /** Runs `client` until the test stops it; what it throws (a 502 is not JSON) is a failure. */
    const untilStopped = async (client: () => Promise<void>) => {
      while (!stop) await client().catch((error: unknown) => outcomes.failures.push(String(error)));
    };
    let flows = 0;

    const flowClient = (client: number) => async () => {
      const flow = flows++;
      const transfer = { amount: '1.00', to: `client-${client}-${flow}` };
      const asked = await rawToolCall(proxy.url, 'transfer_funds', transfer, {
        capabilities: FORM,
      });
      const state = asked.body.result?.requestState;
      if (typeof state !== 'string') {
        outcomes.failures.push(`round 1: ${asked.status} ${asked.text.slice(0, 200)}`);
        return;
      }
      const done = await rawToolCall(proxy.url, 'transfer_funds', transfer, {
        capabilities: FORM,
        id: freshId(),
        requestState: state,
        inputResponses: APPROVE,
      });
      if (resultText(done) === `Transferred 1.00 to client-${client}-${flow}`) outcomes.flows++;
      else outcomes.failures.push(`round 2: ${done.status} ${done.text.slice(0, 200)}`);
    };

    const taskClient = async () => {
      const created = await rawRound(
        proxy.url,
        'tools/call',
        { name: 'slow_compute', arguments: { seconds: 1, label: 'rolling' } },
        { capabilities: TASKS },
      );
      const taskId = (created.body.result as { taskId?: string } | undefined)?.taskId;
      if (typeof taskId !== 'string') {
        outcomes.failures.push(`task: ${created.status} ${created.text.slice(0, 200)}`);
        return;
      }
      const task = await until(
        async () =>
          (await rawRound(proxy.url, 'tasks/get', { taskId }, { capabilities: TASKS })).body
            .result as { status?: string } | undefined,
        {
          done: (polled) => polled?.status !== 'working',
          what: `task ${taskId} to end`,
          timeoutMs: 30_000,
          everyMs: 100,
        },
      );
      if (task?.status === 'completed') outcomes.tasks++;
      else outcomes.failures.push(`task ${taskId}: ${JSON.stringify(task)}`);
    };

    const clients = [
      ...Array.from({ length: 6 }, (_, client) => untilStopped(flowClient(client))),
      untilStopped(taskClient),
      untilStopped(taskClient),
    ];
    const settled = Promise.allSettled(clients);
    try {
      await until(() => outcomes.flows >= 20, { what: 'load to be under way' });
      for (let round = 0; round < 2; round++) {
        a = await replace(a, 'express');
        b = await replace(b, 'fastify');
      }
      const flowsAfter = outcomes.flows;
      await until(() => outcomes.flows >= flowsAfter + 20, { what: 'flows on the new instances' });
    } finally {
      stop = true;
    }
    const ended = await settled;
    for (const client of ended) if (client.status === 'rejected') throw client.reason;

    expect(proxy.lost).toEqual([]);
    expect(outcomes.failures).toEqual([]);
    expect(outcomes.flows).toBeGreaterThan(40);
    expect(outcomes.tasks).toBeGreaterThan(0);
  }, 180_000);
});
