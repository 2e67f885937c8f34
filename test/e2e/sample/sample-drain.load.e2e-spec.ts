import { performance } from 'node:perf_hooks';
import { newKeyring } from '../../fixtures/sample-app';
import { ALL_ADAPTERS } from '../../utils/bootstrap';
import { KeepAliveConnection, type KeepAliveResponse } from '../../utils/keep-alive-connection';
import {
  freshId,
  rawRound,
  rawToolCall,
  resultText,
  rpcBody,
  rpcHeaders,
  stateOf,
} from '../../utils/mcp';
import { SseReader } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { httpGet } from '../../utils/raw-http';
import { SampleFleet } from '../../utils/sample-fleet';
import { type SampleProcess, type SampleProcessEnv } from '../../utils/sample-process';
import { sleep, until } from '../../utils/wait';
import {
  connectV1,
  openSession,
  SampleUser,
  SESSION_PROTOCOL_VERSION,
  sessionPost,
} from '../../utils/session-clients';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { APPROVE } from '../../utils/sample-calls';

const ADMIN_TOKEN = 'drain-admin-token';
const FORM = { elicitation: {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };

const probe = (process: SampleProcess, which: 'live' | 'ready') =>
  httpGet(new URL(`/health/${which}`, process.url), {});

/** Whether a request to `process` is refused at the socket: nothing listens any more. */
async function refused(process: SampleProcess): Promise<boolean> {
  return probe(process, 'live').then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
  );
}

/** When a promise settles, measured on the test's clock (`performance.now()`). */
function settledAt(promise: Promise<unknown>): Promise<number> {
  return promise.then(
    () => performance.now(),
    () => performance.now(),
  );
}

/** The answer to a request that reached the instance after it stopped taking work. */
function expectRefusedWhileDraining(response: KeepAliveResponse, id: number | null): void {
  // On the connection opened before the signal: a new one would have been refused at TCP.
  expect(response.reused).toBe(true);
  expect(response.status).toBe(503);
  expect(response.headers['retry-after']).toBe('1');
  expect(response.headers.connection).toBe('close');
  expect(JSON.parse(response.text)).toEqual({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: 'Server busy: the server is shutting down',
      data: { retryAfterMs: 1000 },
    },
  });
}

/**
 * What a rolling restart does to an instance: SIGTERM (the sample calls `enableShutdownHooks`),
 * with `shutdown.drainDelayMs` (MCP_SHUTDOWN_DRAIN_DELAY_MS) and `shutdown.graceMs`
 * (MCP_SHUTDOWN_GRACE_MS).
 */
describe.each(ALL_ADAPTERS)('the sample app drains on SIGTERM, over %s', (adapter) => {
  const samples = new SampleFleet({ end: 'kill' });
  beforeAll(() => samples.open(), 120_000);
  afterAll(() => samples.close());

  const sample = (env: Partial<SampleProcessEnv>) =>
    samples.start(adapter, {
      MCP_ADMIN_TOKEN: ADMIN_TOKEN,
      MCP_KEYRING: newKeyring(['k1']).json,
      ...env,
    });

  it('goes unready first, still serves new requests (closing their connections), finishes those in flight, then exits', async () => {
    const instance = await sample({
      MCP_SHUTDOWN_DRAIN_DELAY_MS: '1500',
      MCP_SHUTDOWN_GRACE_MS: '30000',
    });
    expect((await probe(instance, 'ready')).status).toBe(200);
    expect((await probe(instance, 'live')).status).toBe(200);

    // In flight when the signal comes: it finishes, whatever the drain does around it. A call
    // sent after it and answered tells that it has reached the instance.
    const slow = rawToolCall(instance.url, 'slow_compute', { seconds: 2, label: 'drain' });
    expect(resultText(await rawToolCall(instance.url, 'greet', { name: 'early' }))).toBe(
      'Hello, early!',
    );
    const exited = instance.terminate();

    const ready = await until(async () => probe(instance, 'ready'), {
      done: (response) => response.status === 503,
      what: 'readiness to go down',
      everyMs: 20,
    });
    // Terminus says it is shutting down; the module's indicator says why.
    expect(JSON.parse(ready.text)).toMatchObject({
      error: { mcp: { status: 'down', message: 'draining for shutdown' } },
    });
    // Alive all the while: an orchestrator must not restart a draining instance.
    expect((await probe(instance, 'live')).status).toBe(200);
    // A balancer that has not noticed yet loses nothing: served, and told to reconnect elsewhere.
    const during = await rawToolCall(instance.url, 'greet', { name: 'late' });
    expect(resultText(during)).toBe('Hello, late!');
    expect(during.headers.connection).toBe('close');
    // A listen stream opened now is acknowledged and ended at once with its final result: the
    // client opens its next one elsewhere.
    const listen = await openListenStream(instance.url, { toolsListChanged: true }, { id: 41 });
    const frames = await new SseReader(listen.body).rest();
    expect(frames.map((frame) => frame.method ?? frame.result?.resultType)).toEqual([
      'notifications/subscriptions/acknowledged',
      'complete',
    ]);
    expect(frames[1].id).toBe(41);

    expect(resultText(await slow)).toBe('Computed drain after 2 s');
    // Closed cleanly: Nest raises the signal again once the app is closed.
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await refused(instance)).toBe(true);
    expect(instance.log()).toMatch(/Draining after SIGTERM: not ready; \d+ requests in flight/);
    expect(instance.log()).toMatch(/Drained in \d+ ms/);
  }, 60_000);

  it('past shutdown.drainDelayMs refuses what it cannot finish: new connections at TCP, requests on open ones with a 503 that runs nothing', async () => {
    const GRACE_MS = 15_000;
    // Two instances of a fleet on one Redis: what the draining one refused, its successor serves.
    const fleet = {
      MCP_KEYRING: newKeyring(['k1']).json,
      ...samples.onRedis,
      MCP_TASK_LOCK_MS: '1000',
    };
    const instance = await sample({
      ...fleet,
      MCP_SHUTDOWN_DRAIN_DELAY_MS: '500',
      MCP_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    const successor = await sample(fleet);
    const alice = { Authorization: 'Bearer alice' };

    // Work begun before the signal, each waiting for its next request: a flow's approval round,
    // a task's answer, a 2025-era session.
    const transfer = { amount: '4.00', to: 'drain' };
    const approval = {
      capabilities: FORM,
      requestState: stateOf(
        await rawToolCall(instance.url, 'transfer_funds', transfer, { capabilities: FORM }),
      ),
      inputResponses: APPROVE,
    };
    const created = await rawRound(
      instance.url,
      'tools/call',
      { name: 'export_report', arguments: { dataset: 'drain', rows: 20 } },
      { capabilities: TASKS },
    );
    const { taskId } = created.body.result as { taskId: string };
    const taskStatus = async (at: SampleProcess) =>
      (
        (await rawRound(at.url, 'tasks/get', { taskId }, { capabilities: TASKS })).body.result as {
          status: string;
        }
      ).status;
    await until(() => taskStatus(instance), {
      done: (status) => status === 'input_required',
      what: 'the task to ask for input',
    });
    const answerTask = {
      taskId,
      inputResponses: { include_personal: { action: 'accept', content: { include: false } } },
    };
    const sessionId = await openSession(instance.url, alice);
    const session = {
      ...alice,
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': SESSION_PROTOCOL_VERSION,
      Accept: 'application/json, text/event-stream',
    };
    const sessionCall = (id: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'greet', arguments: { name: 'session' } },
      });

    // Connections a balancer's pool holds open, idle when the signal comes.
    const kinds = ['call', 'task', 'listen', 'sessionPost', 'sessionGet'] as const;
    const pool = Object.fromEntries(
      kinds.map((kind) => [kind, new KeepAliveConnection(instance.url)]),
    ) as Record<(typeof kinds)[number], KeepAliveConnection>;
    try {
      for (const connection of Object.values(pool))
        expect((await connection.send('GET', '/health/live')).status).toBe(200);

      // Six seconds of work in flight at the signal: the instance must finish it.
      const slow = rawToolCall(instance.url, 'slow_compute', { seconds: 6, label: 'drain' });
      expect(resultText(await rawToolCall(instance.url, 'greet', { name: 'early' }))).toBe(
        'Hello, early!',
      );
      const signalledAt = performance.now();
      const exited = instance.terminate();
      const exitedAt = settledAt(exited);
      let slowSettled = false;
      void slow.finally(() => (slowSettled = true)).catch(() => undefined);

      // New connections 1.5 s and 3 s after the signal (test choreography, not a measure of
      // speed): refused at TCP, while the call in flight still runs.
      const refusedAfter = async (afterMs: number) => {
        await sleep(Math.max(0, signalledAt + afterMs - performance.now()));
        for (const path of ['/health/live', instance.url.pathname])
          await expect(httpGet(new URL(path, instance.url), {})).rejects.toMatchObject({
            code: 'ECONNREFUSED',
          });
      };
      await refusedAfter(1_500);

      // A request on a connection already open is answered at once with a 503, while the call in
      // flight still runs, and nothing of it runs: a plain call (the flow's approval), a task
      // step, a listen stream, a 2025-era session's POST and its GET stream.
      /** A 2026-07-28 request on `connection` is refused as draining. */
      const expectRefusedOn = async (
        connection: KeepAliveConnection,
        method: string,
        name: string | undefined,
        params: Record<string, unknown>,
        capabilities?: Record<string, unknown>,
      ) => {
        const id = freshId();
        expectRefusedWhileDraining(
          await connection.send(
            'POST',
            instance.url.pathname,
            rpcHeaders(method, name),
            rpcBody(method, params, id, capabilities),
          ),
          id,
        );
      };
      await expectRefusedOn(
        pool.call,
        'tools/call',
        'transfer_funds',
        {
          name: 'transfer_funds',
          arguments: transfer,
          requestState: approval.requestState,
          inputResponses: APPROVE,
        },
        FORM,
      );
      await expectRefusedOn(pool.task, 'tasks/update', taskId, answerTask, TASKS);
      await expectRefusedOn(pool.listen, 'subscriptions/listen', undefined, {
        notifications: { toolsListChanged: true },
      });
      const sessionCallId = freshId();
      expectRefusedWhileDraining(
        await pool.sessionPost.send(
          'POST',
          instance.url.pathname,
          { ...session, 'Content-Type': 'application/json' },
          sessionCall(sessionCallId),
        ),
        sessionCallId,
      );
      expectRefusedWhileDraining(
        await pool.sessionGet.send('GET', instance.url.pathname, {
          ...session,
          Accept: 'text/event-stream',
        }),
        null,
      );
      expect(slowSettled).toBe(false);

      await refusedAfter(3_000);
      expect(slowSettled).toBe(false);

      // The call in flight completes; the process exits within shutdown.graceMs of the signal.
      expect(resultText(await slow)).toBe('Computed drain after 6 s');
      expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
      expect((await exitedAt) - signalledAt).toBeLessThanOrEqual(GRACE_MS);
      expect(instance.log()).toMatch(/Draining after SIGTERM: not ready; 1 requests in flight/);
      expect(instance.log()).toMatch(
        /No new work after \d+ ms \(shutdown\.drainDelayMs\): not listening; 1 requests in flight/,
      );
      expect(instance.log()).toMatch(
        /Drained in \d+ ms; 5 requests on open connections refused \(503\) after shutdown\.drainDelayMs/,
      );
    } finally {
      for (const connection of Object.values(pool)) connection.close();
    }

    // Nothing of what was refused ran: sent again to the successor, each is served as the first
    // time. The approval's single-use state was not consumed (a replay would be refused)...
    expect(resultText(await rawToolCall(successor.url, 'transfer_funds', transfer, approval))).toBe(
      'Transferred 4.00 to drain',
    );
    // ...the task still waits for its answer, which the successor takes...
    expect(await taskStatus(successor)).toBe('input_required');
    await rawRound(successor.url, 'tasks/update', answerTask, { capabilities: TASKS });
    await until(() => taskStatus(successor), {
      done: (status) => status === 'completed',
      what: 'the task to complete on the successor',
    });
    // ...and the session goes on there.
    const again = await sessionPost(
      successor.url,
      JSON.parse(sessionCall(freshId())) as Record<string, unknown>,
      sessionId,
      alice,
    );
    expect(again.status).toBe(200);
    expect(again.messages[0]?.result).toMatchObject({
      content: [{ type: 'text', text: 'Hello, session!' }],
    });
  }, 90_000);

  it('with the default drainDelayMs (0) refuses new work from the signal on and finishes the call in flight', async () => {
    const instance = await sample({ MCP_SHUTDOWN_GRACE_MS: '10000' });
    const open = new KeepAliveConnection(instance.url);
    try {
      expect((await open.send('GET', '/health/live')).status).toBe(200);
      const slow = rawToolCall(instance.url, 'slow_compute', { seconds: 4, label: 'default' });
      expect(resultText(await rawToolCall(instance.url, 'greet', { name: 'early' }))).toBe(
        'Hello, early!',
      );
      let slowSettled = false;
      void slow.finally(() => (slowSettled = true)).catch(() => undefined);
      const exited = instance.terminate();
      await until(() => instance.log().includes('Draining after SIGTERM'), {
        what: 'the drain to begin',
      });
      // A late call is never accepted and cut at graceMs: refused, on a new connection or an open one.
      await expect(httpGet(new URL('/health/live', instance.url), {})).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
      const id = freshId();
      expectRefusedWhileDraining(
        await open.send(
          'POST',
          instance.url.pathname,
          rpcHeaders('tools/call', 'slow_compute'),
          rpcBody('tools/call', { name: 'slow_compute', arguments: { seconds: 4 } }, id),
        ),
        id,
      );
      expect(slowSettled).toBe(false);
      expect(resultText(await slow)).toBe('Computed default after 4 s');
      expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
      expect(instance.log()).toMatch(/Drained in \d+ ms; 1 requests on open connections refused/);
    } finally {
      open.close();
    }
  }, 60_000);

  it("ends a 2025-era session's call waiting for the user's answer with the documented -32014, and exits", async () => {
    const instance = await sample({ MCP_SHUTDOWN_GRACE_MS: '20000' });
    const user = new SampleUser();
    const client = await connectV1(instance.url, user, { Authorization: 'Bearer alice' });
    let exited: ReturnType<SampleProcess['terminate']> | undefined;
    // The signal comes while the call waits for the user.
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      exited = instance.terminate();
      await until(() => instance.log().includes('Draining after SIGTERM'), {
        what: 'the drain to begin',
      });
      return user.answer(request.params.message);
    });
    try {
      // Told at once that it did not complete, so the client may send it again elsewhere.
      await expect(
        client.callTool({ name: 'transfer_funds', arguments: { amount: '3.00', to: 'erin' } }),
      ).rejects.toMatchObject({
        code: -32014,
        message: expect.stringContaining('the request did not complete'),
      });
    } finally {
      await client.close().catch(() => undefined);
    }
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(instance.log()).toMatch(/Drained in \d+ ms/);
  }, 60_000);

  it('cuts what is still open when shutdown.graceMs runs out, and exits', async () => {
    const instance = await sample({ MCP_SHUTDOWN_GRACE_MS: '1000' });
    // Far longer than the grace: it cannot finish before the instance must be gone.
    let settled = false;
    const endless = rawToolCall(instance.url, 'slow_compute', { seconds: 600 }).then(
      () => (settled = true),
      () => (settled = true),
    );
    expect(resultText(await rawToolCall(instance.url, 'greet', { name: 'early' }))).toBe(
      'Hello, early!',
    );
    expect(await instance.terminate()).toEqual({ code: null, signal: 'SIGTERM' });
    await endless;
    expect(settled).toBe(true);
    expect(instance.log()).toMatch(
      /1 requests still open after \d+ ms \(shutdown\.graceMs\): their connections are closed/,
    );
  }, 60_000);
});
