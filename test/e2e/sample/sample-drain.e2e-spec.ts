import { newKeyring } from '../../fixtures/sample-app';
import { ALL_ADAPTERS } from '../../utils/bootstrap';
import { rawToolCall, resultText, rpcBody, rpcHeaders } from '../../utils/mcp';
import { postForStream, SseReader } from '../../utils/sse';
import { httpGet } from '../../utils/raw-http';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
  type SampleProcessEnv,
} from '../../utils/sample-process';
import { until } from '../../utils/wait';
import { connectV1, SampleUser } from '../../utils/session-clients';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const ADMIN_TOKEN = 'drain-admin-token';

function sample(
  adapter: (typeof ALL_ADAPTERS)[number],
  env: Partial<SampleProcessEnv>,
): Promise<SampleProcess> {
  return startSampleProcess(adapter, {
    MCP_ADMIN_TOKEN: ADMIN_TOKEN,
    MCP_KEYRING: newKeyring(['k1']).json,
    ...env,
  });
}

const probe = (process: SampleProcess, which: 'live' | 'ready') =>
  httpGet(new URL(`/health/${which}`, process.url), {});

/** Whether a request to `process` is refused at the socket: nothing listens any more. */
async function refused(process: SampleProcess): Promise<boolean> {
  return probe(process, 'live').then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
  );
}

/**
 * What a rolling restart does to an instance: SIGTERM (the sample calls `enableShutdownHooks`),
 * with `shutdown.drainDelayMs` (MCP_SHUTDOWN_DRAIN_DELAY_MS) and `shutdown.graceMs`
 * (MCP_SHUTDOWN_GRACE_MS).
 */
describe.each(ALL_ADAPTERS)('the sample app drains on SIGTERM, over %s', (adapter) => {
  const started: SampleProcess[] = [];

  beforeAll(async () => {
    await ensureSampleBuilt();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(started.map((each) => each.kill()));
  });

  it('goes unready first, still serves new requests (closing their connections), finishes those in flight, then exits', async () => {
    const instance = await sample(adapter, {
      MCP_SHUTDOWN_DRAIN_DELAY_MS: '1500',
      MCP_SHUTDOWN_GRACE_MS: '30000',
    });
    started.push(instance);
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
    const listen = await postForStream(
      instance.url,
      rpcHeaders('subscriptions/listen'),
      rpcBody('subscriptions/listen', { notifications: { toolsListChanged: true } }, 41),
    );
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

  it("ends a 2025-era session's call waiting for the user's answer with the documented -32014, and exits", async () => {
    const instance = await sample(adapter, { MCP_SHUTDOWN_GRACE_MS: '20000' });
    started.push(instance);
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
    const instance = await sample(adapter, { MCP_SHUTDOWN_GRACE_MS: '1000' });
    started.push(instance);
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
