import { BullMqTaskRunner, RedisTaskStore } from '../../../../src/entry/redis';
import { newKeyring } from '../../../fixtures/sample-app';
import { FleetProbe, fleetTasksApp, bullMqFleetForSuite } from './fleet-tasks.fixtures';
import { startTestServer, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';

import { until } from '../../../utils/wait';
import { redisForSuite } from '../../../utils/redis-suite';

const { client } = redisForSuite();

// B answers requests but runs no steps (`worker: false`): every step runs on A's worker, so a
// task created through B runs detached on A (as the caller B's guard found).
describe('a fleet on Redis: RedisTaskStore and BullMqTaskRunner (A on Express, B on Fastify)', () => {
  const keyring = newKeyring(['k1']);
  const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const { a, b } = bullMqFleetForSuite(client, keyring, 'fleet');

  const send = (server: TestServer, method: string, params: Record<string, unknown>) =>
    rawRound(server.url, method, params, { capabilities, headers: { 'x-user': 'alice' } });

  it('stops, through tasks/cancel on B, the method running on A', async () => {
    const created = await send(a, 'tools/call', { name: 'long_step', arguments: {} });
    const taskId = (created.body.result as { taskId: string }).taskId;
    const onA = a.app.get(FleetProbe);
    expect(
      await until(() => onA.started, { done: (started) => started.includes(taskId) }),
    ).toContain(taskId);

    const cancelled = await send(b, 'tasks/cancel', { taskId });
    expect(cancelled.body.result).toMatchObject({ resultType: 'complete' });
    expect(
      await until(() => onA.aborted, { done: (aborted) => aborted.includes(taskId) }),
    ).toContain(taskId);
    const task = (await send(a, 'tasks/get', { taskId })).body.result as { status: string };
    expect(task.status).toBe('cancelled');
    expect(b.app.get(FleetProbe).started).toEqual([]);
  });

  it('runs a task created through B on A, detached, as the caller B authenticated', async () => {
    const created = await send(b, 'tools/call', { name: 'owner_report', arguments: {} });
    const taskId = (created.body.result as { taskId: string }).taskId;
    const done = await until(
      async () => (await send(b, 'tasks/get', { taskId })).body.result as Record<string, unknown>,
      { done: (task) => task.status !== 'working' },
    );
    expect(done).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'report for alice (detached)' }] },
    });
    expect(a.app.get(FleetProbe).started).toContain(taskId);
    expect(b.app.get(FleetProbe).started).not.toContain(taskId);
    // Still alice's: bob and a caller without credentials learn nothing of it.
    const asBob = await rawRound(
      b.url,
      'tasks/get',
      { taskId },
      {
        capabilities,
        headers: { 'x-user': 'bob' },
      },
    );
    expect(asBob.body.error).toEqual({ code: -32602, message: 'Unknown task' });
    const anonymous = await rawRound(a.url, 'tasks/get', { taskId }, { capabilities });
    expect(anonymous.body.error).toMatchObject({ code: -32001 });
  });

  it('finishes on another instance a step whose instance shut down mid-step', async () => {
    const queueName = 'fleet-failover';
    const withWorker = () => ({
      keyring: { active: keyring.active, keys: { ...keyring.keys } },
      tasks: {
        store: new RedisTaskStore(client, { keyPrefix: 'fleet:' }),
        runner: new BullMqTaskRunner(client, { queueName, lockDurationMs: 1_000 }),
      },
    });
    const first = await startTestServer('express', { imports: [fleetTasksApp(withWorker())] });
    let second: TestServer | undefined;
    try {
      const created = await send(first, 'tools/call', { name: 'patient_report', arguments: {} });
      const taskId = (created.body.result as { taskId: string }).taskId;
      await until(() => first.app.get(FleetProbe).started, {
        done: (started) => started.includes(taskId),
      });
      second = await startTestServer('fastify', { imports: [fleetTasksApp(withWorker())] });
      // Only the second instance lets the step finish: on the first it runs until closed.
      second.app.get(FleetProbe).release();
      await first.close();
      const done = await until(
        async () =>
          (await send(second as TestServer, 'tasks/get', { taskId })).body.result as Record<
            string,
            unknown
          >,
        { done: (task) => task.status !== 'working' },
      );
      expect(done).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'patient report for alice' }] },
      });
      expect(second.app.get(FleetProbe).started).toContain(taskId);
    } finally {
      await second?.close();
    }
  });

  it('fails the task, closed, when the guard of the instance running a detached step refuses it', async () => {
    const queueName = 'fleet-strict';
    const strict = (worker: boolean) => ({
      keyring: { active: keyring.active, keys: { ...keyring.keys } },
      tasks: {
        store: new RedisTaskStore(client, { keyPrefix: 'fleet:' }),
        runner: new BullMqTaskRunner(client, { queueName, worker }),
      },
    });
    const runner = await startTestServer('express', {
      imports: [fleetTasksApp(strict(true), 'refused')],
    });
    const front = await startTestServer('fastify', {
      imports: [fleetTasksApp(strict(false), 'refused')],
    });
    try {
      const created = await send(front, 'tools/call', { name: 'owner_report', arguments: {} });
      const taskId = (created.body.result as { taskId: string }).taskId;
      const done = await until(
        async () =>
          (await send(front, 'tasks/get', { taskId })).body.result as Record<string, unknown>,
        { done: (task) => task.status !== 'working' },
      );
      expect(done).toMatchObject({ status: 'failed', error: { code: -32001 } });
      expect(runner.app.get(FleetProbe).started).not.toContain(taskId);
    } finally {
      await front.close();
      await runner.close();
    }
  });

  it('never puts the principal, its token or the partition on the wire', async () => {
    const created = await send(b, 'tools/call', { name: 'owner_report', arguments: {} });
    const taskId = (created.body.result as { taskId: string }).taskId;
    const polled = await until(async () => send(a, 'tasks/get', { taskId }), {
      done: (response) => (response.body.result as { status?: string }).status === 'completed',
    });
    expect(polled.text).not.toContain('principal');
    expect(polled.text).not.toContain('partition');
  });
});
