import { newKeyring } from '../../fixtures/sample-app';
import { rawRound } from '../../utils/mcp';
import { SampleFleet } from '../../utils/sample-fleet';

import { until } from '../../utils/wait';
import { startSlowComputeTask } from '../../utils/sample-calls';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const ADMIN_TOKEN = 'failover-admin-token';

/**
 * `MCP_STORE=redis` runs the sample's tasks on Redis and a BullMQ queue: two sample processes share
 * them, the one running a step is SIGKILLed mid-step, and the other finishes the task.
 */
describe('the sample app on Redis + BullMQ: a task survives the death of the process running it', () => {
  const samples = new SampleFleet();
  beforeAll(() => samples.open(), 120_000);
  afterAll(() => samples.close());

  it('finishes on B the slow_compute step A was running when it was killed', async () => {
    const env = {
      MCP_ADMIN_TOKEN: ADMIN_TOKEN,
      MCP_KEYRING: newKeyring(['k1']).json,
      ...samples.onRedis,
      MCP_TASK_LOCK_MS: '1000',
    };
    const a = await samples.start('express', env);
    const taskId = await startSlowComputeTask(a.url, { seconds: 2, label: 'failover' });
    // A's worker has taken the step once the task reports progress.
    await until(
      async () => {
        const task = (await rawRound(a.url, 'tasks/get', { taskId }, { capabilities: TASKS })).body
          .result as { statusMessage?: string } | undefined;
        return task?.statusMessage?.startsWith('failover:') === true;
      },
      { what: 'the task to report progress on A', everyMs: 50 },
    );
    await a.kill();

    const b = await samples.start('fastify', env);
    const task = await until(
      async () =>
        (await rawRound(b.url, 'tasks/get', { taskId }, { capabilities: TASKS })).body.result as
          { status?: string; result?: unknown } | undefined,
      {
        done: (polled) => polled?.status !== 'working',
        what: 'the task to finish on B',
        timeoutMs: 20_000,
        everyMs: 100,
      },
    );
    expect(task).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Computed failover after 2 s' }] },
    });
  }, 60_000);
});
