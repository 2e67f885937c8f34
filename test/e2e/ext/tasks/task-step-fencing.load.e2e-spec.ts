import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { McpModule, McpTool } from '../../../../src/index';
import { BullMqTaskRunner, RedisTaskStore } from '../../../../src/entry/redis';
import { fencedToolsOptions } from './fenced-tools';
import { newKeyring } from '../../../fixtures/sample-app';
import { startTestServer, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';
import { startRedisServer, type RedisServerHandle } from '../../../utils/redis-server';
import { until } from '../../../utils/wait';

// Issue #17 (item 6): a BullMQ worker paused longer than its lock (SIGSTOP) while another instance
// runs the same step must not commit that step's outcome when it resumes (SIGCONT).

interface WorkerProcess {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves once the process has printed a line starting with `prefix` (at most 30 s). */
  printed(prefix: string): Promise<string>;
  output(): string;
}

const ROOT = resolve(__dirname, '../../../..');

function spawnWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(ROOT, 'test/e2e/ext/tasks/fenced-worker.ts')],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, TS_NODE_PROJECT: 'tsconfig.json', NO_COLOR: '1' },
      stdio: 'pipe',
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    process: child,
    pid: child.pid as number,
    output: () => output,
    async printed(prefix) {
      const line = await until(
        () => {
          if (child.exitCode !== null) throw new Error(`the worker exited:\n${output}`);
          return output.split('\n').find((each) => each.startsWith(prefix));
        },
        { what: `the worker to print "${prefix}…"`, timeoutMs: 30_000 },
      );
      return line;
    },
  };
}

/** The front instance's copy of the tool: it only creates tasks (its runner takes no steps). */
@Injectable()
class FrontTools {
  @McpTool({ description: 'Waits, then performs its side effect', taskSupport: 'required' })
  slow_effect(): string {
    throw new Error('the front instance runs no steps');
  }
}

describe('a BullMQ worker paused past its lock (SIGSTOP) while another runs its step', () => {
  let redis: RedisServerHandle;
  let client: Redis;
  let front: TestServer;
  const workers: WorkerProcess[] = [];
  const keyring = newKeyring(['k1']);
  const queue = `fenced-${process.pid}`;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
    process.env.KEYRING = keyring.json;
    @Module({
      imports: [
        McpModule.forRoot({
          ...fencedToolsOptions(),
          tasks: {
            store: new RedisTaskStore(client, { keyPrefix: 'fenced:' }),
            runner: new BullMqTaskRunner(client, { queueName: queue, worker: false }),
          },
        }),
      ],
      providers: [FrontTools],
    })
    class FrontModule {}
    front = await startTestServer('express', { imports: [FrontModule] });
  }, 30_000);

  afterAll(async () => {
    for (const worker of workers) {
      worker.process.kill('SIGCONT');
      worker.process.kill('SIGKILL');
    }
    await front?.close();
    client?.disconnect();
    await redis?.close();
    delete process.env.KEYRING;
  });

  const send = (method: string, params: Record<string, unknown>) =>
    rawRound(front.url, method, params, {
      capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      headers: { 'x-user': 'alice' },
    });

  it('lets the paused worker commit nothing when it resumes mid-step of the worker that took over', async () => {
    const env = { REDIS_PORT: String(redis.port), QUEUE: queue, KEYRING: keyring.json };
    const first = spawnWorker(env);
    workers.push(first);
    await first.printed('ready');

    const created = await send('tools/call', { name: 'slow_effect', arguments: {} });
    const taskId = (created.body.result as { taskId: string }).taskId;
    await first.printed(`started ${taskId} ${first.pid}`);
    // Paused mid-step: its lock (1 s) lapses, and the step is queued again for another worker.
    first.process.kill('SIGSTOP');

    const second = spawnWorker(env);
    workers.push(second);
    await second.printed(`started ${taskId} ${second.pid}`);
    // Resumed while the second worker is still in its step: the first one's method carries on
    // and ends (its side effect may happen: the documented "may run more than once")…
    first.process.kill('SIGCONT');
    await first.printed(`step-ended ${taskId} ${first.pid}`);
    // …but what it ended with is not recorded: the task is still the second worker's to finish.
    const meanwhile = (await send('tasks/get', { taskId })).body.result as Record<string, unknown>;
    expect(meanwhile.status).toBe('working');
    expect(first.output()).toMatch(
      new RegExp(`Task ${taskId}: this worker (no longer holds its step|lost its lock)`),
    );

    await second.printed(`step-ended ${taskId} ${second.pid}`);
    const done = (await send('tasks/get', { taskId })).body.result as Record<string, unknown>;
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: `done by ${second.pid}` }] },
    });
    // The worker that took over performed its side effect once.
    const effects = await client.lrange(`effects:${taskId}`, 0, -1);
    expect(effects.filter((pid) => pid === String(second.pid))).toHaveLength(1);
  }, 60_000);
});
