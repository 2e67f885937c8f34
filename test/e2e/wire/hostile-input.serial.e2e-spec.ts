import { randomBytes } from 'node:crypto';
import { DEFAULT_LIMITS, type Json } from './hostile-bodies';
import {
  HOSTILE_CASES,
  fourMiBSimpleText,
  type HostileAnswer,
  type HostileCase,
} from './hostile-cases';
import { MALFORMED_PARAMS } from './malformed-params';
import { expectErrorResponse } from '../../utils/expect-rpc';
import { ALL_ADAPTERS, type AdapterName } from '../../utils/bootstrap';
import { costDuring, cpuTimeOf, DelayTable, type ServerCost } from '../../utils/loop-delay';
import { rpcBody, rpcHeaders } from '../../utils/mcp';
import { SseReader, type OpenStream } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import {
  httpPost,
  stalledRequest,
  type RawHttpResponse,
  type StalledRequest,
} from '../../utils/raw-http';
import {
  ensureSampleBuilt,
  startSampleProcess,
  type SampleProcess,
} from '../../utils/sample-process';
import { sleep, until } from '../../utils/wait';

// Issue #7 (items 1, 2 and 8): the built sample app runs in a child process, so the event-loop
// delay it reports is the server's own, not the test client's.

const ADMIN_TOKEN = randomBytes(16).toString('hex');
/**
 * What one hostile exchange may cost the server, in CPU time beyond a trivial exchange's: this many
 * times what native `JSON.parse` of a 4 MiB body takes in this process, measured again next to
 * each row (so a slower machine gets a larger budget, and a busy one does not shrink it: CPU time
 * grows far less with the load than wall-clock time does). The event-loop stall each exchange
 * caused is measured and reported beside it, not asserted: on a busy machine it is mostly time the
 * server waited for a core. The dearest shape (4 MiB of 1,024-digit numbers, parsed losslessly)
 * measured 6–16 × the reference, idle to a load of 6 on 2 cores; one comma-quadratic step in the
 * body scanner made the 20,000-value rows cost over 200 ×.
 */
const CPU_BUDGET = 30;
/**
 * The idle server may use at most this share of an idle window's wall-clock time in CPU (about
 * 1 % measured: the health exchanges that bracket the window). A busy machine only lowers it.
 */
const IDLE_CPU_SHARE = 0.1;
const IDLE_MS = 200;
/** The first bytes of each body, which the in-flight budget never counts. */
const SMALL_BODY_BYTES = 65_536;
const SAMPLES = 3;
const SHORT_BODY_TIMEOUT_MS = 1_000;
/**
 * The body timeout of the instance with otherwise default limits: longer than any test of this
 * file may take (150 s), so a held body is never answered by its timer while a test counts
 * answers — on a loaded machine, 40 half-sent 4 MiB bodies took over 60 s to arrive.
 */
const HELD_BODY_TIMEOUT_MS = 300_000;
/**
 * RSS after the corpus (about a hundred 4 MiB bodies, 31 of them completing at once), with V8's
 * default heap limit: V8 collects lazily, so this counts garbage not yet collected as much as live
 * memory. Observed 540–640 MB on both adapters; a leak of the bodies would pass 1 GB.
 */
const RSS_BOUND_BYTES = 800 * 1024 * 1024;
const SIMPLE_TEXT = 'This is a simple text response for testing.';

const table = new DelayTable();
const REFERENCE_BODY = Buffer.from(fourMiBSimpleText());
const references: number[] = [];

/**
 * The CPU budget of one exchange now, ms (see {@link CPU_BUDGET}): the reference is measured again
 * each time, right after the exchanges it bounds, so that it shares their moment.
 */
function cpuBudget(exchanges = 1): number {
  const reference = cpuTimeOf(() => JSON.parse(REFERENCE_BODY.toString('utf8')), 5);
  references.push(reference);
  return exchanges * CPU_BUDGET * reference;
}

beforeAll(() => ensureSampleBuilt(), 180_000);

afterAll(() => {
  table.note(
    `reference: JSON.parse of a 4 MiB body in the test process, ${Math.min(...references).toFixed(1)}` +
      `–${Math.max(...references).toFixed(1)} ms CPU; budget per exchange ${CPU_BUDGET} × that`,
  );
  console.log(
    table.render(
      ALL_ADAPTERS.flatMap((adapter) => [`${adapter} stall`, `${adapter} CPU`]),
      'Inside the sample app per request, ms: the event-loop max delay (stall; each value includes ' +
        'the 10 ms sampling interval) and the CPU time beyond a trivial exchange (CPU); median (min)',
    ),
  );
});

/** Records the costs of one row for one adapter in the table. */
function record(row: string, adapter: AdapterName, costs: readonly ServerCost[], floorCpuMs = 0) {
  table.record(
    row,
    `${adapter} stall`,
    costs.map((cost) => cost.stallMs),
  );
  table.record(
    row,
    `${adapter} CPU`,
    costs.map((cost) => cost.cpuMs - floorCpuMs),
  );
}

/** The least CPU time of `costs` beyond the floor, in ms. */
const excessCpu = (costs: readonly ServerCost[], floorCpuMs: number) =>
  Math.min(...costs.map((cost) => cost.cpuMs)) - floorCpuMs;

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

/** A 2026-07-28 request whose params may be anything (objects get the `_meta` envelope). */
function requestWithParams(method: string, params: unknown, id = 7): string {
  if (params !== null && typeof params === 'object' && !Array.isArray(params))
    return rpcBody(method, params as Record<string, unknown>, id);
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    ...(params === undefined ? {} : { params }),
  });
}

/** The `Mcp-Name` of a request's params, when they name something. */
function nameOf(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  const { name, uri } = params as { name?: unknown; uri?: unknown };
  if (typeof name === 'string') return name;
  return typeof uri === 'string' ? uri : undefined;
}

function expectBusy(response: RawHttpResponse): void {
  expect(response.status).toBe(503);
  expect(response.headers['retry-after']).toBe('1');
  expect(parsed(response)).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32000,
      message: 'Server busy: too many large request bodies in flight',
      data: { maxInFlightBytes: DEFAULT_LIMITS.maxInFlightBytes },
    },
  });
}

const SIMPLE_TEXT_ANSWER: HostileAnswer = { kind: 'text', text: SIMPLE_TEXT };
const LIST_BODY = rpcBody('tools/list');

/** `url` still serves a normal call: `test_simple_text`, answered in full. */
async function expectServesSimpleText(url: URL): Promise<void> {
  const response = await httpPost(
    url,
    rpcHeaders('tools/call', 'test_simple_text'),
    rpcBody('tools/call', { name: 'test_simple_text', arguments: {} }),
  );
  expectAnswer(SIMPLE_TEXT_ANSWER, response);
}
const MB = 1024 * 1024;

/** Bodies without sealed state are built once for both adapters. */
const sharedBodies = new Map<string, Buffer>();

describe.each(ALL_ADAPTERS)('hostile input over %s (sample app as a child process)', (adapter) => {
  /**
   * Default limits, but a body timeout longer than any test waits (60 s, not 10 s): on a loaded
   * machine 40 half-sent 4 MiB bodies can take more than 10 s to arrive, and the held ones must
   * still be held when they are counted.
   */
  let sample: SampleProcess;
  /** `requestBodyTimeoutMs` of 1 s. */
  let quick: SampleProcess;

  beforeAll(async () => {
    [sample, quick] = await Promise.all([
      startSampleProcess(adapter, {
        MCP_ADMIN_TOKEN: ADMIN_TOKEN,
        MCP_REQUEST_BODY_TIMEOUT_MS: String(HELD_BODY_TIMEOUT_MS),
      }),
      startSampleProcess(adapter, {
        MCP_ADMIN_TOKEN: ADMIN_TOKEN,
        MCP_REQUEST_BODY_TIMEOUT_MS: String(SHORT_BODY_TIMEOUT_MS),
      }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([sample?.stop(), quick?.stop()]);
  }, 15_000);

  const listExchange = async () => {
    const response = await httpPost(sample.url, rpcHeaders('tools/list'), LIST_BODY);
    expect(parsed(response).result).toHaveProperty('tools');
  };

  let floorCpuMs: number | undefined;
  /** The least CPU time a trivial exchange (tools/list) costs this server, with the measuring. */
  async function floorCpu(): Promise<number> {
    if (floorCpuMs === undefined) {
      for (let i = 0; i < 2; i++) await listExchange();
      const costs: ServerCost[] = [];
      for (let i = 0; i < SAMPLES + 2; i++) costs.push(await costDuring(sample, listExchange));
      floorCpuMs = Math.min(...costs.map((cost) => cost.cpuMs));
      record('baseline: tools/list', adapter, costs, floorCpuMs);
    }
    return floorCpuMs;
  }

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
    it('baseline: tools/list, cost measured', async () => {
      // The floor every other row is measured from; itself well within the budget.
      expect(await floorCpu()).toBeLessThanOrEqual(cpuBudget());
    });

    for (const hostile of HOSTILE_CASES) {
      it(`${hostile.name} → ${describeAnswer(hostile.answer)}, cost measured`, async () => {
        const floor = await floorCpu();
        // A body carrying state is sent once per state (transfer_funds is single-use): the most
        // exchanges below (a warm-up, 3 samples) each get their own, made beforehand.
        const bodies = [await bodyOf(hostile)];
        if (!sharedBodies.has(hostile.name))
          while (bodies.length < 1 + SAMPLES) bodies.push(await bodyOf(hostile));
        let sent = 0;
        const exchange = async () =>
          expectAnswer(
            hostile.answer,
            await send(hostile, bodies[Math.min(sent++, bodies.length - 1)]),
          );
        // Warm-up: the first run of a shape also pays for JIT compilation (and the least of the
        // samples is what counts).
        await exchange();
        const costs: ServerCost[] = [];
        for (let i = 0; i < SAMPLES; i++) costs.push(await costDuring(sample, exchange));
        record(hostile.name, adapter, costs, floor);
        expect(excessCpu(costs, floor)).toBeLessThanOrEqual(cpuBudget());
      }, 60_000);
    }
  });

  describe('malformed params: HTTP 200, -32602 "Invalid params" naming the field', () => {
    it.each(MALFORMED_PARAMS)('$method, $label → $field', async ({ method, params, field }) => {
      const response = await httpPost(
        sample.url,
        rpcHeaders(method, nameOf(params)),
        requestWithParams(method, params),
      );
      // The exact body: no -32603, no validator dump in the message, only the field.
      expect({ status: response.status, body: parsed(response) }).toEqual({
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: 7,
          error: { code: -32602, message: 'Invalid params', data: { field } },
        },
      });
    });
  });

  describe('the other hostile answers', () => {
    it.each([
      ['truncated', LIST_BODY.slice(0, -1)],
      ['followed by garbage', `${LIST_BODY}x`],
      ['not JSON at all', 'hello'],
      ['empty', ''],
    ])('a body that is %s → 400 / -32700 Parse error', async (_label, text) => {
      const response = await httpPost(sample.url, rpcHeaders('tools/list'), text);
      expect({ status: response.status, body: parsed(response) }).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      });
    });

    it.each([
      ['different from the argument', { 'Mcp-Param-Region': 'us' }, 'does not match the argument'],
      ['missing', {}, 'header is missing'],
    ])('an Mcp-Param-Region header %s → 400 / -32020', async (_label, header, problem) => {
      const response = await httpPost(
        sample.url,
        { ...rpcHeaders('tools/call', 'test_custom_header'), ...header },
        rpcBody('tools/call', { name: 'test_custom_header', arguments: { region: 'eu' } }, 9),
      );
      expect({ status: response.status, body: parsed(response) }).toEqual({
        status: 400,
        body: {
          jsonrpc: '2.0',
          id: 9,
          error: { code: -32020, message: `Header mismatch: Mcp-Param-Region ${problem}` },
        },
      });
    });

    const notAnObject = async (inputResponses: unknown) => {
      const response = await httpPost(
        sample.url,
        rpcHeaders('tools/call', 'exact_amount'),
        rpcBody('tools/call', { name: 'exact_amount', inputResponses }, 11),
      );
      expect({ status: response.status, body: parsed(response) }).toEqual({
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: 11,
          error: { code: -32602, message: 'Invalid params: inputResponses must be an object' },
        },
      });
    };

    it.each([
      ['a string', 'abc'],
      ['an array', [1]],
      ['null', null],
      ['true', true],
    ])(
      'inputResponses that is %s → 200 / -32602 "inputResponses must be an object"',
      (_label, inputResponses) => notAnObject(inputResponses),
    );

    it('inputResponses that is a number → the same answer', () => notAnObject(5));
  });

  describe('concurrency and time', () => {
    it('holds large bodies within maxInFlightRequestBytes: the excess gets 503 + Retry-After, small requests are served beside the held ones and while they complete', async () => {
      const floor = await floorCpu();
      const body = Buffer.from(fourMiBSimpleText());
      const headers = rpcHeaders('tools/call', 'test_simple_text');
      const total = 40;
      // Headers and half of each body, then nothing: every admitted body keeps its bytes reserved.
      const half = Math.floor(body.length / 2);
      // Each body's declared length beyond its free first 64 KiB is reserved when it is admitted.
      const perBody = body.length - SMALL_BODY_BYTES;
      const fitting = Math.floor(DEFAULT_LIMITS.maxInFlightBytes / perBody);
      const requests = Array.from({ length: total }, () =>
        stalledRequest('POST', sample.url, headers, body, half),
      );
      // Refused: answered 503, or — when the server's answer raced the client still writing its
      // half body — the connection cut before the client could read the answer.
      const refusedSoFar = () => requests.filter((request) => request.answered() || request.cut());
      try {
        // A hang guard, not a bound: 40 half-sent 4 MiB bodies take a while to arrive on a loaded machine.
        await until(() => refusedSoFar().length >= total - fitting, {
          what: 'the bodies over the budget',
          timeoutMs: 90_000,
        });
        // The admitted ones wait for the rest of their bodies; nothing else may be answered.
        await sleep(300);
        expect(refusedSoFar()).toHaveLength(total - fitting);
        const answeredRefusals = refusedSoFar().filter((request) => request.answered());
        // Refusals read as answers are 503 + Retry-After; a cut connection is the race above.
        expect(answeredRefusals.length).toBeGreaterThan(0);
        for (const refused of answeredRefusals) expectBusy(await refused.response);
        const held = requests.filter((request) => !request.answered() && !request.cut());

        // The budget is spent, yet a small request is served: while every admitted body is still
        // held (none can complete before its rest is sent), so it did not wait for them.
        const list = await httpPost(sample.url, rpcHeaders('tools/list'), LIST_BODY);
        expect(parsed(list).result).toHaveProperty('tools');
        expect(held.filter((request) => request.answered())).toEqual([]);

        // The held bodies complete at once and tools/list is sent right after them: it is served,
        // and the burst costs no more than its bodies would one by one.
        let listedWhileCompleting = 0;
        const burst = await costDuring(sample, async () => {
          for (const request of held) request.sendRest();
          listedWhileCompleting = (await httpPost(sample.url, rpcHeaders('tools/list'), LIST_BODY))
            .status;
          for (const request of held) expectAnswer(SIMPLE_TEXT_ANSWER, await request.response);
        });
        record(`${held.length} × 4 MiB bodies completing at once`, adapter, [burst], floor);
        table.note(
          `${adapter}: ${total - fitting} of ${total} stalled 4 MiB bodies refused (503); tools/list ` +
            `served beside ${held.length} held bodies and while they completed`,
        );
        expect(listedWhileCompleting).toBe(200);
        expect(excessCpu([burst], floor)).toBeLessThanOrEqual(cpuBudget(held.length));
      } finally {
        for (const request of requests) request.abort();
      }
    }, 150_000);

    /**
     * Sends `body` in the same way to the short-timeout instance and to the other one (60 s),
     * resolving with the short one's answer and how long it took. It must come while the same
     * body to the other instance is still unanswered: the deadline is the option's, measured
     * against the other's rather than against the wall clock.
     */
    async function againstDefaultTimeout(
      send: (url: URL) => { request: StalledRequest; stop(): void },
    ): Promise<{ response: RawHttpResponse; elapsed: number }> {
      const started = performance.now();
      const short = send(quick.url);
      const reference = send(sample.url);
      try {
        const response = await short.request.response;
        const elapsed = performance.now() - started;
        expect(reference.request.answered()).toBe(false);
        return { response, elapsed };
      } finally {
        short.stop();
        reference.stop();
      }
    }

    it(`a stalled body is answered 408 once requestBodyTimeoutMs (${SHORT_BODY_TIMEOUT_MS} ms here) has passed`, async () => {
      const body = Buffer.from(LIST_BODY);
      const { response, elapsed } = await againstDefaultTimeout((url) => {
        const request = stalledRequest(
          'POST',
          url,
          rpcHeaders('tools/list'),
          body,
          body.length >> 1,
        );
        return { request, stop: () => request.abort() };
      });
      expectErrorResponse(response, 408, null, {
        code: -32600,
        message: 'Request body timed out',
        data: { timeoutMs: SHORT_BODY_TIMEOUT_MS },
      });
      expect(response.headers.connection).toBe('close');
      // Not before the deadline (a few ms of timer rounding aside): a busy machine only delays it.
      expect(elapsed).toBeGreaterThan(SHORT_BODY_TIMEOUT_MS - 50);
    });

    it('a trickling body is cut at the same deadline: the time bounds the whole body, not each chunk', async () => {
      const body = Buffer.from(LIST_BODY);
      let sent = 1;
      const { response, elapsed } = await againstDefaultTimeout((url) => {
        const request = stalledRequest('POST', url, rpcHeaders('tools/list'), body, 1);
        let mine = 1;
        // A byte every 100 ms: the whole body would take about 15 s, and no chunk waits 1 s.
        const trickle = setInterval(() => {
          request.sendUpTo(++mine);
          if (url === quick.url) sent = mine;
        }, 100);
        return { request, stop: () => (clearInterval(trickle), request.abort()) };
      });
      expect(response.status).toBe(408);
      expect(sent).toBeLessThan(body.length);
      expect(elapsed).toBeGreaterThan(SHORT_BODY_TIMEOUT_MS - 50);
    });

    it('the timed-out bodies gave their slots back: the same instance serves a normal call', async () => {
      await expectServesSimpleText(quick.url);
    });
  });

  describe('held listen streams', () => {
    it('400 hostile streams, each from its own caller following 100 URIs of 2,048 characters, leave the process serving', async () => {
      const uris = Array.from({ length: 100 }, (_, i) => `hostile://${i}/${'u'.repeat(2_030)}`);
      const before = await sample.health();
      const streams: OpenStream[] = [];
      try {
        for (let batch = 0; batch < 8; batch++) {
          const opened = await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              openListenStream(
                sample.url,
                { resourceSubscriptions: uris },
                { id: 1, headers: { Authorization: `Bearer h${batch}x${i}` } },
              ),
            ),
          );
          streams.push(...opened);
        }
        expect(streams.every((stream) => stream.status === 200)).toBe(true);
        const ack = await new SseReader(streams[streams.length - 1].body).next();
        expect(ack.method).toBe('notifications/subscriptions/acknowledged');

        const list = await httpPost(sample.url, rpcHeaders('tools/list'), LIST_BODY);
        expect(parsed(list).result).toHaveProperty('tools');
        const held = await sample.health();
        const perStream = (held.heapUsedBytes - before.heapUsedBytes) / streams.length;
        table.note(
          `${adapter}: 400 held listen streams (100 × 2,048-character URIs each): RSS ` +
            `${(held.rssBytes / MB).toFixed(0)} MB, heap +${(perStream / 1024).toFixed(0)} KiB per stream`,
        );
        expect(held.rssBytes).toBeLessThan(RSS_BOUND_BYTES);
      } finally {
        for (const stream of streams) stream.close();
      }
    }, 60_000);
  });

  describe('after the corpus', () => {
    it('serves a normal call, idles with a calm loop, and its RSS stays within bound', async () => {
      await expectServesSimpleText(sample.url);
      // Idle: no timer left running, nothing spinning.
      const idle: ServerCost[] = [];
      for (let i = 0; i < SAMPLES; i++) idle.push(await costDuring(sample, () => sleep(IDLE_MS)));
      record(`idle ${IDLE_MS} ms after the corpus`, adapter, idle);
      expect(Math.min(...idle.map((cost) => cost.cpuMs / cost.wallMs))).toBeLessThanOrEqual(
        IDLE_CPU_SHARE,
      );
      const { rssBytes, heapUsedBytes } = await sample.health();
      table.note(
        `${adapter}: after the corpus RSS ${(rssBytes / MB).toFixed(0)} MB, ` +
          `heap used ${(heapUsedBytes / MB).toFixed(0)} MB`,
      );
      expect(rssBytes).toBeLessThan(RSS_BOUND_BYTES);
    });
  });
});
