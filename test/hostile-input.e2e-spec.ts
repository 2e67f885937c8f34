import { randomBytes } from 'node:crypto';
import { DEFAULT_LIMITS, type Json } from './fixtures/hostile-bodies';
import { HOSTILE_CASES, type HostileAnswer, type HostileCase } from './fixtures/hostile-cases';
import { ADAPTERS } from './utils/bootstrap';
import { DelayTable, loopDelayDuring, sleep } from './utils/loop-delay';
import { rpcBody, rpcHeaders } from './utils/mcp';
import { httpPost, stalledRequest, type RawHttpResponse } from './utils/raw-http';
import { ensureSampleBuilt, startSampleProcess, type SampleProcess } from './utils/sample-process';

// Issue #7 (items 1, 2 and 8): the built sample app runs in a child process, so the event-loop
// delay it reports is the server's own, not the test client's.

const ADMIN_TOKEN = randomBytes(16).toString('hex');
/** A stall over this fails, on the best of the measured samples (noise only ever adds delay). */
const DELAY_BOUND_MS = 100;
/** Ceiling for a stall known to exceed the bound (see the case's `knownStall`). */
const KNOWN_STALL_CEILING_MS = 1_000;
const SAMPLES = 3;
const SHORT_BODY_TIMEOUT_MS = 1_000;
/**
 * RSS after the corpus (4 MiB bodies, 32 of them at once). V8 collects lazily, so this measures
 * garbage not yet collected as much as live memory; observed 250–600 MB on both adapters.
 */
const RSS_BOUND_BYTES = 768 * 1024 * 1024;
const SIMPLE_TEXT = 'This is a simple text response for testing.';

const table = new DelayTable();

beforeAll(() => ensureSampleBuilt(), 180_000);

afterAll(() => {
  console.log(
    table.render(
      ADAPTERS,
      'Event-loop max delay inside the sample app per request, ms: median (min) of the samples; ' +
        'each value includes the 10 ms sampling interval',
    ),
  );
});

type RpcResponse = {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, unknown>;
    content?: { type: string; text?: string }[];
  };
  error?: { code: number; message: string; data?: unknown };
};

function parsed(response: RawHttpResponse): RpcResponse {
  try {
    return JSON.parse(response.text) as RpcResponse;
  } catch {
    throw new Error(`HTTP ${response.status} with a non-JSON body: ${response.text.slice(0, 200)}`);
  }
}

function expectAnswer(answer: HostileAnswer, response: RawHttpResponse): void {
  const body = parsed(response);
  if (answer.kind === 'refusal') {
    expect({ status: response.status, body }).toEqual({
      status: answer.status,
      body: { jsonrpc: '2.0', id: answer.id, error: answer.error },
    });
    if (answer.status === 413) expect(response.headers.connection).toBe('close');
    return;
  }
  expect({ status: response.status, error: body.error }).toEqual({ status: 200, error: undefined });
  if (answer.kind === 'input_required') {
    expect(body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { [answer.key]: { method: 'elicitation/create' } },
    });
    expect(typeof body.result?.requestState).toBe('string');
  } else {
    expect(body.result?.resultType).toBe('complete');
    expect(body.result?.content?.[0]?.text).toBe(answer.text);
  }
}

function describeAnswer(answer: HostileAnswer): string {
  if (answer.kind === 'input_required') return `input_required (${answer.key})`;
  if (answer.kind === 'text') return `"${answer.text}"`;
  return `${answer.status} / ${answer.error.code}`;
}

/** Bodies without sealed state are built once for both adapters. */
const sharedBodies = new Map<string, Buffer>();

describe.each(ADAPTERS)('hostile input over %s (sample app as a child process)', (adapter) => {
  /** Default limits. */
  let sample: SampleProcess;
  /** `requestBodyTimeoutMs` of 1 s. */
  let quick: SampleProcess;

  beforeAll(async () => {
    [sample, quick] = await Promise.all([
      startSampleProcess(adapter, { MCP_ADMIN_TOKEN: ADMIN_TOKEN }),
      startSampleProcess(adapter, {
        MCP_ADMIN_TOKEN: ADMIN_TOKEN,
        MCP_REQUEST_BODY_TIMEOUT_MS: String(SHORT_BODY_TIMEOUT_MS),
      }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sample?.stop(), quick?.stop()]);
  }, 15_000);

  async function firstRoundState(message: Record<string, Json>): Promise<string> {
    const name = (message.params as { name: string }).name;
    const response = await httpPost(
      sample.url,
      rpcHeaders('tools/call', name),
      JSON.stringify(message),
    );
    const state = parsed(response).result?.requestState;
    if (typeof state !== 'string') throw new Error(`round 1 emitted no state: ${response.text}`);
    return state;
  }

  async function bodyOf(hostile: HostileCase): Promise<Buffer> {
    const shared = sharedBodies.get(hostile.name);
    if (shared) return shared;
    let stateful = false;
    const text = await hostile.body((message) => {
      stateful = true;
      return firstRoundState(message);
    });
    const body = Buffer.from(text);
    if (!stateful) sharedBodies.set(hostile.name, body);
    return body;
  }

  async function send(hostile: HostileCase, body: Buffer): Promise<RawHttpResponse> {
    const headers = rpcHeaders('tools/call', hostile.tool);
    if (!hostile.headersOnly) return httpPost(sample.url, headers, body);
    const request = stalledRequest('POST', sample.url, headers, body, 0);
    try {
      return await request.response;
    } finally {
      request.abort();
    }
  }

  describe('bodies at the default limits, and one past each', () => {
    for (const hostile of HOSTILE_CASES) {
      it(`${hostile.name} → ${describeAnswer(hostile.answer)}, loop delay measured`, async () => {
        const body = await bodyOf(hostile);
        const exchange = async () => expectAnswer(hostile.answer, await send(hostile, body));
        // Warm-up: the first runs of a shape also pay for JIT compilation.
        for (let i = 0; i < (hostile.withinLimits ? 2 : 1); i++) await exchange();
        const samples: number[] = [];
        for (let i = 0; i < SAMPLES; i++) samples.push(await loopDelayDuring(sample, exchange));
        // Noise (other processes on the machine) only adds delay: one more chance to see the floor.
        if (!hostile.knownStall && Math.min(...samples) >= DELAY_BOUND_MS) {
          for (let i = 0; i < SAMPLES; i++) samples.push(await loopDelayDuring(sample, exchange));
        }
        table.record(hostile.name, adapter, samples);
        const best = Math.min(...samples);
        expect(best).toBeLessThan(hostile.knownStall ? KNOWN_STALL_CEILING_MS : DELAY_BOUND_MS);
      }, 60_000);

      if (hostile.knownStall) {
        // Fails today (see knownStall); passes, and so flags itself for promotion, once fixed.
        it.failing(
          `${hostile.name}: loop delay under ${DELAY_BOUND_MS} ms (known stall: ${hostile.knownStall})`,
          () => {
            const samples = table.samples(hostile.name, adapter) ?? [];
            expect(samples.length).toBeGreaterThan(0);
            expect(Math.min(...samples)).toBeLessThan(DELAY_BOUND_MS);
          },
        );
      }
    }
  });
});
