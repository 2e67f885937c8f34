import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers/promises';
import { newKeyring } from '../../fixtures/sample-app';
import { freshId, rawRound, rawToolCall, resultText } from '../../utils/mcp';
import { SseReader, StreamEnded, type JsonRpcFrame, type OpenStream } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { SampleFleet } from '../../utils/sample-fleet';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../utils/round-robin-proxy';
import { type SampleProcess, type SampleProcessEnv } from '../../utils/sample-process';
import { until } from '../../utils/wait';
import { APPROVE } from '../../utils/sample-calls';

const FORM = { elicitation: {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
const GRACE_MS = 10_000;
/** How long the clients keep going, restarts included. */
const SOAK_MS = 60_000;
/** Tasks the soak creates in all: under the caller's share (maxTasksPerCaller, 100). */
const MAX_TASKS = 80;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** How long the long calls run (`slow_compute`), in turn: calls of several seconds. */
const LONG_CALL_SECONDS = [2, 3, 4];
/** A long call sent less than this long ago still runs when the drain's delay (500 ms) is over. */
const JUST_BEGUN_MS = 500;

interface TaskView {
  status?: string;
  result?: unknown;
}

/**
 * A rolling restart under load, as Kubernetes does one: two sample instances on Redis behind a
 * round-robin balancer with no affinity that follows readiness; each instance in turn is replaced
 * (a new one started, then the old one sent SIGTERM, while it runs a call of several seconds)
 * while flow, task, long-call and listen clients keep going.
 */
describe('the sample app through rolling restarts behind a balancer', () => {
  const samples = new SampleFleet({ end: 'kill' });
  let proxy: RoundRobinProxy;
  let env: SampleProcessEnv;

  beforeAll(async () => {
    await samples.open();
    proxy = await startRoundRobinProxy();
    env = {
      MCP_ADMIN_TOKEN: 'rolling-admin-token',
      MCP_KEYRING: newKeyring(['k1']).json,
      ...samples.onRedis,
      MCP_TASK_LOCK_MS: '1000',
      // A few of the balancer's probes (every 50 ms) to notice readiness is down.
      MCP_SHUTDOWN_DRAIN_DELAY_MS: '500',
      MCP_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    };
  }, 120_000);

  afterAll(async () => {
    await samples.close();
    await proxy?.close();
  });

  const originOf = (instance: SampleProcess) => instance.url.origin;

  async function startInstance(adapter: 'express' | 'fastify'): Promise<SampleProcess> {
    const instance = await samples.start(adapter, env);
    proxy.add(originOf(instance));
    await until(() => proxy.routesTo(originOf(instance)), {
      what: 'the balancer to route to the new instance',
    });
    return instance;
  }

  const drains: {
    readiness: number[];
    drainedMs: number;
    longCallsInFlight: number;
    inFlightPastDelay: number;
  }[] = [];

  async function replace(old: SampleProcess, adapter: 'express' | 'fastify') {
    const fresh = await startInstance(adapter);
    // The signal comes while the old instance runs a call of several seconds, begun just now, so
    // that it still runs when the instance stops taking new work: it must finish it.
    const longCallsOnOld = () =>
      proxy.inFlight(originOf(old)).filter(({ name }) => name === 'slow_compute');
    // The balancer sends new work to the fresh instance first (it holds no connections yet): a
    // long call may take a while to land on the old one again under a loaded machine.
    await until(() => longCallsOnOld().some(({ sentMsAgo }) => sentMsAgo < JUST_BEGUN_MS), {
      what: 'a long call just begun on the instance about to drain',
      everyMs: 10,
      timeoutMs: 30_000,
    });
    const longCallsInFlight = longCallsOnOld().length;
    const ended = await old.terminate();
    samples.forget(old);
    expect(ended).toEqual({ code: null, signal: 'SIGTERM' });
    drains.push({
      readiness: proxy.readinessSeen(originOf(old)).filter((status) => status !== 0),
      drainedMs: Number(/Drained in (\d+) ms/.exec(old.log())?.[1] ?? Infinity),
      longCallsInFlight,
      inFlightPastDelay: Number(
        /No new work after \d+ ms \(shutdown\.drainDelayMs\): not listening; (\d+) requests in flight/.exec(
          old.log(),
        )?.[1] ?? 0,
      ),
    });
    proxy.remove(originOf(old));
    return fresh;
  }

  it('answers every request of every client, completes every flow and every task', async () => {
    let a = await startInstance('express');
    let b = await startInstance('fastify');
    let stop = false;
    const outcomes = {
      flows: 0,
      tasks: 0,
      longCalls: 0,
      listenEnds: 0,
      failures: [] as string[],
    };
    const openStreams = new Set<OpenStream>();

    /** Runs `client` until the test stops it; what it throws (a 502 is not JSON) is a failure. */
    const untilStopped = async (client: () => Promise<void>) => {
      while (!stop) await client().catch((error: unknown) => outcomes.failures.push(String(error)));
    };
    let flows = 0;

    const flowClient = (client: number) => async () => {
      const flow = flows++;
      const transfer = { amount: '1.00', to: `client-${client}-${flow}` };
      // Many callers, as a fleet serves: one caller's share of single-use states (10,000 held at
      // once, each for the state's lifetime) is less than a minute of six clients' flows.
      const caller = { Authorization: `Bearer rolling-${client}-${flow % 8}` };
      const asked = await rawToolCall(proxy.url, 'transfer_funds', transfer, {
        capabilities: FORM,
        headers: caller,
      });
      const state = asked.body.result?.requestState;
      if (typeof state !== 'string') {
        outcomes.failures.push(`round 1: ${asked.status} ${asked.text.slice(0, 200)}`);
        return;
      }
      const done = await rawToolCall(proxy.url, 'transfer_funds', transfer, {
        capabilities: FORM,
        headers: caller,
        id: freshId(),
        requestState: state,
        inputResponses: APPROVE,
      });
      if (resultText(done) === `Transferred 1.00 to client-${client}-${flow}`) outcomes.flows++;
      else outcomes.failures.push(`round 2: ${done.status} ${done.text.slice(0, 200)}`);
    };

    /** Calls of several seconds, one after the other: some are in flight at every signal. */
    let longCalls = 0;
    const longCallClient = (client: number) => async () => {
      const call = longCalls++;
      const seconds = LONG_CALL_SECONDS[call % LONG_CALL_SECONDS.length];
      const label = `long-${client}-${call}`;
      const answered = await rawToolCall(proxy.url, 'slow_compute', { seconds, label });
      if (resultText(answered) === `Computed ${label} after ${seconds} s`) outcomes.longCalls++;
      else outcomes.failures.push(`long call: ${answered.status} ${answered.text.slice(0, 200)}`);
    };

    /** A task that asks for input half way (export_report), answered from whichever instance. */
    let tasksStarted = 0;
    const taskClient = async () => {
      // The caller's share of tasks (maxTasksPerCaller, 100; each held for its ttl, an hour): a
      // client that created that many is refused, as it should be. Stay under it.
      if (tasksStarted >= MAX_TASKS) return void (await setTimeout(200));
      tasksStarted++;
      const send = (method: string, params: Record<string, unknown>) =>
        rawRound(proxy.url, method, params, { capabilities: TASKS });
      const created = await send('tools/call', {
        name: 'export_report',
        arguments: { dataset: 'rolling', rows: 200 },
      });
      const taskId = (created.body.result as { taskId?: string } | undefined)?.taskId;
      if (typeof taskId !== 'string') {
        outcomes.failures.push(`task: ${created.status} ${created.text.slice(0, 200)}`);
        return;
      }
      const status = (wanted: string) =>
        until(async () => (await send('tasks/get', { taskId })).body.result as TaskView, {
          done: (task) => task?.status === wanted || TERMINAL.has(task?.status ?? ''),
          what: `task ${taskId} to be ${wanted}`,
          timeoutMs: 30_000,
          everyMs: 100,
        });
      const asked = await status('input_required');
      if (asked.status !== 'input_required') {
        outcomes.failures.push(`task ${taskId}: ${JSON.stringify(asked)}`);
        return;
      }
      await send('tasks/update', {
        taskId,
        inputResponses: { include_personal: { action: 'accept', content: { include: false } } },
      });
      const done = await status('completed');
      if (done.status === 'completed') outcomes.tasks++;
      else outcomes.failures.push(`task ${taskId}: ${JSON.stringify(done)}`);
    };

    /**
     * A listen stream, opened again each time it ends: every end while the test runs must be the
     * graceful final result (a response to the listen request), never a cut connection.
     */
    const listenClient = async () => {
      const id = freshId();
      const response = await openListenStream(proxy.url, { toolsListChanged: true }, { id });
      openStreams.add(response);
      const frames = new SseReader(response.body);
      let last: JsonRpcFrame | undefined;
      try {
        for (;;) {
          try {
            // One read at a time: a read abandoned on a timeout would swallow the next frame.
            last = await frames.next(120_000);
          } catch (error) {
            if (error instanceof StreamEnded) break;
            if (stop) return;
            throw error;
          }
        }
      } finally {
        openStreams.delete(response);
      }
      if (last?.id === id && last.result?.resultType === 'complete') outcomes.listenEnds++;
      else if (!stop) outcomes.failures.push(`listen stream cut after ${JSON.stringify(last)}`);
    };

    const clients = [
      ...Array.from({ length: 6 }, (_, client) => untilStopped(flowClient(client))),
      ...Array.from({ length: 3 }, (_, client) => untilStopped(longCallClient(client))),
      untilStopped(taskClient),
      untilStopped(taskClient),
      untilStopped(listenClient),
      untilStopped(listenClient),
    ];
    const settled = Promise.allSettled(clients);
    try {
      await until(() => outcomes.flows >= 20, { what: 'load to be under way' });
      const loadStarted = performance.now();
      for (let round = 0; round < 2; round++) {
        a = await replace(a, 'express');
        b = await replace(b, 'fastify');
      }
      // Load on the new instances too, for a minute of load in all.
      const flowsAfter = outcomes.flows;
      await until(
        () => outcomes.flows >= flowsAfter + 20 && performance.now() - loadStarted >= SOAK_MS,
        { what: 'a minute of load, flows on the new instances', timeoutMs: SOAK_MS + 60_000 },
      );
    } finally {
      stop = true;
      for (const stream of openStreams) stream.close();
    }
    const ended = await settled;
    for (const client of ended) if (client.status === 'rejected') throw client.reason;

    // For the record (docs/operations.md): what the soak did.
    console.log(
      `Rolling restarts: ${outcomes.flows} flows, ${outcomes.tasks} tasks with input, ` +
        `${outcomes.longCalls} calls of ${LONG_CALL_SECONDS.join('–')} s (${drains.map((drain) => drain.longCallsInFlight).join(', ')} in flight at the signals; ` +
        `${drains.map((drain) => drain.inFlightPastDelay).join(', ')} requests still in flight when the instance stopped taking work), ` +
        `${outcomes.listenEnds} listen streams ended gracefully, ${proxy.retriedRefusals} refused connections retried, ` +
        `${proxy.lost.length} requests lost, ${proxy.cut.length} answers cut, ${outcomes.failures.length} failures; ` +
        `drains ${drains.map((drain) => drain.drainedMs).join(', ')} ms`,
    );
    expect(proxy.lost).toEqual([]);
    expect(proxy.cut).toEqual([]);
    expect(outcomes.failures).toEqual([]);
    expect(outcomes.flows).toBeGreaterThan(40);
    expect(outcomes.tasks).toBeGreaterThan(0);
    expect(outcomes.longCalls).toBeGreaterThan(0);
    // Each of the four restarts ended the listen streams its instance held, each gracefully.
    expect(outcomes.listenEnds).toBeGreaterThanOrEqual(4);
    for (const drain of drains) {
      // The balancer saw the instance not ready (503) before it stopped answering.
      expect(drain.readiness).toEqual([200, 503]);
      // The drain's own measure of itself, within the grace it was given, though a call of
      // several seconds still ran when it stopped taking new work (and completed: no failure above).
      expect(drain.longCallsInFlight).toBeGreaterThan(0);
      expect(drain.inFlightPastDelay).toBeGreaterThan(0);
      expect(drain.drainedMs).toBeLessThanOrEqual(GRACE_MS);
    }
  }, 180_000);
});
