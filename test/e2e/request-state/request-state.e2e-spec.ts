import type { DynamicModule } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/client';
import { McpModule } from '../../../src/index';
import { BearerPartitionResolver } from '../../../sample-app/src/flows/bearer-partition.resolver';
import { HandlerRuns } from '../../fixtures/handler-runs';
import { RequestStateFixturesModule } from './request-state.fixtures';
import {
  PROTECTOR_FAILURE_SECRET,
  SigningProtectorModule,
  SigningStateProtector,
} from '../../fixtures/signing-protector';
import {
  CapturingLogger,
  keyringOf,
  materialSpellings,
  newKeyMaterial,
  newKeyring,
  startSampleApp,
  type SampleEnv,
} from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import {
  connectClient,
  freshId,
  rawRound,
  rawToolCall,
  resultText,
  stateOf,
  type RawRoundOptions,
  type RawRoundResponse,
} from '../../utils/mcp';
import { sleep } from '../../utils/wait';
import { TRANSFER, APPROVE } from '../../utils/sample-calls';
import { INVALID_STATE, INTERNAL_ERROR } from '../../utils/expect-rpc';
import { serverForSuite } from '../../utils/suite-server';
import { SuiteScope } from '../../utils/suite-resource';

const FORM = { elicitation: {} };
const GO = { next: { action: 'accept', content: { ok: true } } };
// Long enough that two rounds fit comfortably on a loaded machine, short enough to wait out.
const SHORT_LIFETIME_MS = 1_000;

/** The answer to question `n` of `collect_rounds`. */
const stepAnswer = (n: number, value: string) => ({
  [`step-${n}`]: { action: 'accept', content: { value } },
});

/** The clear header of a sealed state (first segment, `4_<iat>_<exp>_<round>`). */
function headerOf(state: string): { v: number; iat: number; exp: number; r: number } {
  const [v, iat, exp, r] = state.slice(0, state.indexOf('.')).split('_').map(Number);
  return { v, iat, exp, r };
}

/** The key id a sealed state names (second segment). */
function kidOf(state: string): string {
  return Buffer.from(state.split('.')[1], 'base64url').toString('latin1');
}

/** The state with one base64url character in the middle of its ciphertext changed. */
function flipMiddle(state: string): string {
  const at = state.lastIndexOf('.') + Math.floor((state.length - state.lastIndexOf('.')) / 2);
  const replacement = state[at] === 'A' ? 'B' : 'A';
  return `${state.slice(0, at)}${replacement}${state.slice(at + 1)}`;
}

describe.each(ADAPTERS)('request state over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  const logger = new CapturingLogger();
  const clients: Client[] = [];
  // Declared before the servers' scope, so the clients close first.
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  const scope = new SuiteScope();
  /** The sample app with the fixtures, `env` its variables. */
  const sampleWith = (env: SampleEnv) =>
    serverForSuite(
      () => startSampleApp(adapter, env, { extraImports: [RequestStateFixturesModule], logger }),
      scope,
    );
  /** An app of the fixtures alone, on `mcpModule`. */
  const fixturesOn = (mcpModule: DynamicModule) =>
    serverForSuite(
      () =>
        startTestServer(adapter, { imports: [mcpModule, RequestStateFixturesModule] }, '/mcp', {
          logger,
        }),
      scope,
    );
  /** The main instance; `twin` shares its keyring. */
  const main = sampleWith({ MCP_KEYRING: keyring.json });
  const twin = sampleWith({ MCP_KEYRING: keyring.json });
  /** Same key id, different bytes. */
  const impostor = sampleWith({ MCP_KEYRING: keyringOf({ k1: newKeyMaterial() }, 'k1').json });
  /** Another key id altogether. */
  const stranger = sampleWith({ MCP_KEYRING: newKeyring(['k9']).json });
  const shortLived = sampleWith({
    MCP_KEYRING: keyring.json,
    MCP_STATE_MAX_LIFETIME_MS: String(SHORT_LIFETIME_MS),
  });
  /** Same keyring, a 60 s lifetime. */
  const minuteLived = sampleWith({ MCP_KEYRING: keyring.json, MCP_STATE_MAX_LIFETIME_MS: '60000' });
  const twoRounds = sampleWith({ MCP_KEYRING: keyring.json, MCP_STATE_MAX_ROUNDS: '2' });
  const otherEndpoint = sampleWith({ MCP_KEYRING: keyring.json, MCP_ENDPOINT: '/other-mcp' });
  /** Same keyring and partitions, but larger state limits (McpModule.forRoot). */
  const roomy = fixturesOn(
    McpModule.forRoot({
      keyring: { active: keyring.active, keys: keyring.keys },
      requestState: { maxEncodedBytes: 200_000, maxDecodedBytes: 150_000 },
      identity: { partitionResolver: new BearerPartitionResolver() },
    }),
  );
  /** A custom RequestStateProtector through forRootAsync, with a short lifetime. */
  const custom = fixturesOn(
    McpModule.forRootAsync({
      imports: [SigningProtectorModule],
      inject: [SigningStateProtector],
      useFactory: (protector: SigningStateProtector) => ({
        requestState: { maxLifetimeMs: SHORT_LIFETIME_MS, protector },
      }),
    }),
  );

  const runs = (server: TestServer, name: string) => server.app.get(HandlerRuns).count(name);

  async function transfers(server: TestServer): Promise<number> {
    return (
      JSON.parse(resultText(await rawToolCall(server.url, 'side_effects', {}))) as {
        transfers: number;
      }
    ).transfers;
  }

  /** Round 1 of a flow: its response, the state and the request id that emitted it. */
  async function start(
    server: TestServer,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: RawRoundOptions = {},
  ): Promise<{ state: string; id: number; response: RawRoundResponse }> {
    const id = freshId();
    const response = await rawToolCall(server.url, tool, args, {
      capabilities: FORM,
      ...options,
      id,
    });
    return { state: stateOf(response), id, response };
  }

  /** A retry of `fixture_probe` under `state`, answering its question. */
  const probeRetry = (server: TestServer, state: unknown, args: Record<string, unknown> = {}) =>
    rawToolCall(server.url, 'fixture_probe', args, {
      capabilities: FORM,
      requestState: state,
      inputResponses: GO,
    });

  /**
   * A `fixture_probe` retry under `state` on `server` is refused with -32602 before the handler
   * runs, and the log says why (`reason`).
   */
  async function expectProbeRefused(
    server: TestServer,
    state: string,
    reason: string,
    args?: Record<string, unknown>,
  ): Promise<void> {
    const ran = runs(server, 'fixture_probe');
    const mark = logger.lines.length;
    const response = await probeRetry(server, state, args);
    expect(response.body.error).toEqual(INVALID_STATE);
    expect(runs(server, 'fixture_probe')).toBe(ran);
    expect(logger.text(mark)).toContain(`request state rejected: ${reason}`);
  }

  /** A retry of a `rounds`-round `collect_rounds` under `state`, answering question `n` with `value`. */
  const collectRetry = (
    server: TestServer,
    rounds: number,
    state: unknown,
    n: number,
    value: string,
  ) =>
    rawToolCall(
      server.url,
      'collect_rounds',
      { rounds },
      { capabilities: FORM, requestState: state, inputResponses: stepAnswer(n, value) },
    );

  /** The log lines written since `mark`. */
  describe('framework-protected state on the wire', () => {
    it('round 1 seals an opaque token; round 2 with it completes', async () => {
      const sent = Date.now();
      const { state, response } = await start(main, 'transfer_funds', TRANSFER);
      const answered = Date.now();
      expect(response.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { approval: {} },
      });
      const segments = state.split('.');
      expect(segments).toHaveLength(4);
      expect(segments[0]).toMatch(/^4_[0-9]+_[0-9]+_1$/);
      for (const segment of segments) expect(segment).toMatch(/^[A-Za-z0-9_-]+$/);
      const header = headerOf(state);
      expect(header).toEqual({ v: 4, iat: expect.any(Number), exp: header.iat + 900_000, r: 1 });
      // Issued while the request was in flight (the server shares this machine's clock).
      expect(header.iat).toBeGreaterThanOrEqual(sent);
      expect(header.iat).toBeLessThanOrEqual(answered);
      expect(kidOf(state)).toBe('k1');
      // The application's JSON is encrypted, not merely encoded.
      expect(
        segments.map((segment) => Buffer.from(segment, 'base64url').toString('latin1')).join(),
      ).not.toContain('awaiting');

      const before = await transfers(main);
      const done = await rawToolCall(main.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        requestState: state,
        inputResponses: APPROVE,
      });
      expect(resultText(done)).toBe('Transferred 12.50 to bob');
      expect(await transfers(main)).toBe(before + 1);

      // transfer_funds is single-use: the same approval under a fresh id is refused, unrun.
      const mark = logger.lines.length;
      const replay = await rawToolCall(main.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        requestState: state,
        inputResponses: APPROVE,
      });
      expect(replay.body.error).toEqual(INVALID_STATE);
      expect(logger.text(mark)).toContain('request state rejected: replayed');
      expect(await transfers(main)).toBe(before + 1);
    });

    it('cannot be skipped: an answer sent without the state is asked again and nothing happens', async () => {
      const before = await transfers(main);
      const response = await rawToolCall(main.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        inputResponses: APPROVE,
      });
      expect(response.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { approval: {} },
      });
      expect(await transfers(main)).toBe(before);
    });

    it('hands the handler exactly its JSON, and nothing in the application accessor', async () => {
      const { state } = await start(main, 'fixture_probe', {});
      const done = await probeRetry(main, state);
      expect(resultText(done)).toBe('continued: {"application":null,"framework":{"step":1}}');
    });

    it('re-emission keeps issue and expiry time, increments the round and records the new request id', async () => {
      const first = await start(main, 'collect_rounds', { rounds: 3 });
      const secondId = freshId();
      const second = await rawToolCall(
        main.url,
        'collect_rounds',
        { rounds: 3 },
        {
          id: secondId,
          capabilities: FORM,
          requestState: first.state,
          inputResponses: { 'step-1': { action: 'accept', content: { value: 'a' } } },
        },
      );
      const h1 = headerOf(first.state);
      const h2 = headerOf(stateOf(second));
      expect(h2).toEqual({ v: 4, iat: h1.iat, exp: h1.exp, r: 2 });
    });

    it('binds a missing arguments object and {} alike, and numbers by value', async () => {
      const { state } = await start(main, 'fixture_probe', undefined);
      const done = await probeRetry(main, state);
      expect(resultText(done)).toMatch(/^continued/);

      const rounds = await start(
        main,
        'collect_rounds',
        { rounds: '@rounds' },
        { rawTokens: { '"@rounds"': '3' } },
      );
      const next = await rawToolCall(
        main.url,
        'collect_rounds',
        { rounds: '@rounds' },
        {
          capabilities: FORM,
          requestState: rounds.state,
          inputResponses: { 'step-1': { action: 'accept', content: { value: 'a' } } },
          rawTokens: { '"@rounds"': '3.0' },
        },
      );
      expect(next.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'step-2': {} },
      });
    });

    it('ignores transient _meta (progress token, trace context) but binds other _meta', async () => {
      const { state } = await start(main, 'fixture_probe', {});
      const transient = await rawToolCall(
        main.url,
        'fixture_probe',
        {},
        {
          capabilities: FORM,
          requestState: state,
          inputResponses: GO,
          rawTokens: {
            '"_meta":{':
              '"_meta":{"progressToken":"p-7","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",',
          },
        },
      );
      expect(resultText(transient)).toMatch(/^continued/);

      const ran = runs(main, 'fixture_probe');
      const custom = await rawToolCall(
        main.url,
        'fixture_probe',
        {},
        {
          capabilities: FORM,
          requestState: state,
          inputResponses: GO,
          rawTokens: { '"_meta":{': '"_meta":{"com.example/tenant":"acme",' },
        },
      );
      expect(custom.body.error).toEqual(INVALID_STATE);
      expect(runs(main, 'fixture_probe')).toBe(ran);

      // The _meta envelope is bound too: a client that declares other capabilities on the retry is refused.
      const widened = await rawToolCall(
        main.url,
        'fixture_probe',
        {},
        {
          capabilities: { ...FORM, roots: {} },
          requestState: state,
          inputResponses: GO,
        },
      );
      expect(widened.body.error).toEqual(INVALID_STATE);
      expect(runs(main, 'fixture_probe')).toBe(ran);
    });

    it('binds the method: a tool state does not open for the prompt of the same name', async () => {
      const promptState = stateOf(
        await rawRound(
          main.url,
          'prompts/get',
          { name: 'fixture_same_name' },
          { capabilities: FORM },
        ),
      );
      const prompt = await rawRound(
        main.url,
        'prompts/get',
        { name: 'fixture_same_name' },
        { capabilities: FORM, requestState: promptState, inputResponses: GO },
      );
      expect(prompt.body.result).toMatchObject({
        resultType: 'complete',
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: 'prompt continued: {"application":null,"framework":{"from":"prompt"}}',
            },
          },
        ],
      });

      const { state: toolState } = await start(main, 'fixture_same_name', {});
      const ran = runs(main, 'fixture_same_name prompt');
      const refused = await rawRound(
        main.url,
        'prompts/get',
        { name: 'fixture_same_name' },
        { capabilities: FORM, requestState: toolState, inputResponses: GO },
      );
      expect(refused.body.error).toEqual(INVALID_STATE);
      expect(runs(main, 'fixture_same_name prompt')).toBe(ran);
    });

    it('answers -32603 with no state when the state is too large to seal; the handler has already run', async () => {
      const ran = runs(main, 'fixture_probe');
      const mark = logger.lines.length;
      const response = await rawToolCall(
        main.url,
        'fixture_probe',
        { pad: 50_000 },
        { capabilities: FORM },
      );
      expect(response.body.error).toEqual(INTERNAL_ERROR);
      expect(response.text).not.toContain('requestState');
      expect(runs(main, 'fixture_probe')).toBe(ran + 1);
      expect(logger.text(mark)).toMatch(
        /MCP tools\/call "fixture_probe" \(request \d+, flow [0-9a-f-]{36}\): request state could not be sealed \(too_large\)/,
      );
    });

    it('completes through the official client when every round carries a progress token', async () => {
      const client = await connectClient(
        main.url,
        {},
        {
          capabilities: FORM,
          setup: (c) =>
            c.setRequestHandler('elicitation/create', (request) => ({
              action: 'accept',
              content: { value: (request.params as { message: string }).message.slice(6, 7) },
            })),
        },
      );
      clients.push(client);
      const result = await client.callTool(
        { name: 'collect_rounds', arguments: { rounds: 3 } },
        { onprogress: () => undefined },
      );
      expect(result.content).toEqual([{ type: 'text', text: '1,2,3' }]);
    });

    it('is not single-use: the same state opens on every valid retry (documented)', async () => {
      const { state } = await start(main, 'fixture_probe', {});
      for (let i = 0; i < 2; i++) {
        const done = await probeRetry(main, state);
        expect(resultText(done)).toMatch(/^continued/);
      }
    });
  });

  describe('every rejection is one -32602 and the handler never runs', () => {
    type Flow = {
      tool: string;
      args: Record<string, unknown>;
      answer: Record<string, unknown>;
      /** What a completed (or even started) handler changes. */
      effect: (server: TestServer) => Promise<number>;
    };
    const flows: Record<string, Flow> = {
      transfer_funds: {
        tool: 'transfer_funds',
        args: TRANSFER,
        answer: APPROVE,
        effect: (server) => transfers(server),
      },
      fixture_probe: {
        tool: 'fixture_probe',
        args: {},
        answer: GO,
        effect: async (server) => runs(server, 'fixture_probe'),
      },
    };

    type Attempt = {
      server?: TestServer;
      state: string;
      args?: Record<string, unknown>;
      id?: number;
      headers?: Record<string, string>;
    };
    type Case = [
      label: string,
      reason: string | RegExp,
      attempt: (flow: Flow, first: { state: string; id: number }) => Promise<Attempt> | Attempt,
    ];

    const cases: Case[] = [
      [
        'tampered (one character flipped in the middle)',
        'authentication_failed',
        (_flow, { state }) => ({ state: flipMiddle(state) }),
      ],
      // Depending on the ciphertext length the edit breaks the base64url or the tag.
      [
        'with "-TAMPERED" appended',
        /malformed|authentication_failed/,
        (_flow, { state }) => ({ state: `${state}-TAMPERED` }),
      ],
      [
        'truncated',
        /malformed|authentication_failed/,
        (_flow, { state }) => ({ state: state.slice(0, -12) }),
      ],
      ['not a token at all', 'malformed', () => ({ state: 'not-a-token' })],
      [
        'issued for another tool',
        'binding_mismatch (operation)',
        async (flow) => {
          const other =
            flow.tool === 'fixture_probe'
              ? await start(main, 'transfer_funds', TRANSFER)
              : await start(main, 'fixture_probe', {});
          return { state: other.state };
        },
      ],
      [
        'issued to another caller (Bearer alice, retried as Bearer eve)',
        'binding_mismatch (caller)',
        async (flow) => {
          const alice = await start(main, flow.tool, flow.args, {
            headers: { Authorization: 'Bearer alice' },
          });
          return { state: alice.state, headers: { Authorization: 'Bearer eve' } };
        },
      ],
      [
        'issued to a caller and retried anonymously',
        'binding_mismatch (caller)',
        async (flow) => ({
          state: (
            await start(main, flow.tool, flow.args, { headers: { Authorization: 'Bearer alice' } })
          ).state,
        }),
      ],
      [
        'presented with different arguments',
        'binding_mismatch (arguments)',
        (flow, { state }) => ({
          state,
          args: flow.tool === 'transfer_funds' ? { amount: '99', to: 'bob' } : { pad: 1 },
        }),
      ],
      [
        'replayed with the JSON-RPC id of the request that emitted it',
        'replayed_request_id',
        (_flow, { state, id }) => ({ state, id }),
      ],
      [
        'sealed under the same key id with other bytes (another keyring)',
        'authentication_failed',
        (_flow, { state }) => ({ state, server: impostor }),
      ],
      [
        'sealed under a key id this keyring does not hold',
        'unknown_key',
        (_flow, { state }) => ({ state, server: stranger }),
      ],
      [
        'presented at another endpoint path',
        'binding_mismatch (endpoint)',
        (_flow, { state }) => ({ state, server: otherEndpoint }),
      ],
      [
        'longer than 65,536 bytes',
        'too_large',
        (_flow, { state }) => ({ state: `${state}${'A'.repeat(65_537 - state.length)}` }),
      ],
    ];

    describe.each(Object.keys(flows))('%s', (flowName) => {
      const flow = flows[flowName];

      it('completes with the untouched state (control)', async () => {
        const first = await start(main, flow.tool, flow.args);
        const before = await flow.effect(main);
        const done = await rawToolCall(main.url, flow.tool, flow.args, {
          capabilities: FORM,
          requestState: first.state,
          inputResponses: flow.answer,
        });
        expect(done.body.result?.resultType).toBe('complete');
        expect(await flow.effect(main)).toBe(before + 1);
      });

      it.each(cases)('refuses a state %s', async (_label, reason, attempt) => {
        const first = await start(main, flow.tool, flow.args);
        const {
          server = main,
          state,
          args = flow.args,
          id = freshId(),
          headers,
        } = await attempt(flow, first);
        const before = await flow.effect(server);
        const mark = logger.lines.length;
        const response = await rawToolCall(server.url, flow.tool, args, {
          id,
          capabilities: FORM,
          requestState: state,
          inputResponses: flow.answer,
          headers,
        });
        expect(response.status).toBe(200);
        expect(response.body.error).toEqual(INVALID_STATE);
        expect(response.body).not.toHaveProperty('result');
        expect(await flow.effect(server)).toBe(before);
        // The flow is named once the state proved authentic (it is sealed inside).
        const line = new RegExp(
          `MCP tools/call "${flow.tool}" \\(request ${id}, (flow [0-9a-f-]{36}|state not opened)\\): request state rejected: (.+?)(?: — .*)? McpRequestState`,
        ).exec(logger.text(mark));
        expect(line).not.toBeNull();
        const [, where, logged] = line as RegExpExecArray;
        if (typeof reason === 'string') expect(logged).toBe(reason);
        else expect(logged).toMatch(reason);
        const authentic = /binding_mismatch|replayed_request_id/.test(logged);
        expect(where.startsWith('flow ')).toBe(authentic);
      });
    });

    it.each([
      ['a number', 42],
      ['an object', { state: 'x' }],
    ])(
      'refuses a requestState that is %s with -32602 (the SDK answers first)',
      async (_label, state) => {
        const ran = runs(main, 'fixture_probe');
        const response = await probeRetry(main, state);
        expect(response.status).toBe(200);
        expect(response.body.error?.code).toBe(-32602);
        expect(runs(main, 'fixture_probe')).toBe(ran);
      },
    );

    it('refuses a genuine state that is over 65,536 bytes (sealed where the limit is larger)', async () => {
      const big = await start(roomy, 'fixture_probe', { pad: 70_000 });
      expect(Buffer.byteLength(big.state)).toBeGreaterThan(65_536);
      const onRoomy = await probeRetry(roomy, big.state, { pad: 70_000 });
      expect(resultText(onRoomy)).toMatch(/^continued/);

      await expectProbeRefused(main, big.state, 'too_large', { pad: 70_000 });
    });

    it('refuses a state once its lifetime is over', async () => {
      const control = await start(shortLived, 'fixture_probe', {});
      const ok = await probeRetry(shortLived, control.state);
      expect(resultText(ok)).toMatch(/^continued/);

      const { state } = await start(shortLived, 'fixture_probe', {});
      expect(headerOf(state).exp - headerOf(state).iat).toBe(SHORT_LIFETIME_MS);
      await sleep(SHORT_LIFETIME_MS + 50);
      await expectProbeRefused(shortLived, state, 'expired');
    });

    it('counts the lifetime from the first state of the flow, not the latest', async () => {
      const first = await start(shortLived, 'collect_rounds', { rounds: 3 });
      // Long enough that a fresh lifetime would outlast the first one, leaving most of it for round 2.
      await sleep(SHORT_LIFETIME_MS / 4);
      const second = await collectRetry(shortLived, 3, first.state, 1, 'a');
      // Accepted, so within the lifetime: the renewed state keeps the flow's first expiry.
      const renewed = stateOf(second);
      expect(headerOf(renewed).r).toBe(headerOf(first.state).r + 1);
      expect(headerOf(renewed).exp).toBe(headerOf(first.state).exp);
      await sleep(headerOf(first.state).exp + 30 - Date.now());
      // Had the second state been given a fresh lifetime, it would still be valid now.
      const mark = logger.lines.length;
      const third = await collectRetry(shortLived, 3, renewed, 2, 'b');
      expect(third.body.error).toEqual(INVALID_STATE);
      expect(logger.text(mark)).toContain('request state rejected: expired');
    });
  });

  describe('round limit', () => {
    async function collect(
      server: TestServer,
      rounds: number,
      answers: number,
    ): Promise<RawRoundResponse[]> {
      const responses: RawRoundResponse[] = [];
      let state: string | undefined;
      for (let step = 0; step <= answers; step++) {
        const response = await rawToolCall(
          server.url,
          'collect_rounds',
          { rounds },
          {
            capabilities: FORM,
            requestState: state,
            inputResponses:
              step === 0
                ? undefined
                : { [`step-${step}`]: { action: 'accept', content: { value: `v${step}` } } },
          },
        );
        responses.push(response);
        state = response.body.result?.requestState;
        if (state === undefined) break;
      }
      return responses;
    }

    it('lets a retry carrying the last allowed round complete (maxRounds 2, rounds 2)', async () => {
      const responses = await collect(twoRounds, 2, 2);
      expect(
        responses.map(
          (response) =>
            response.body.result?.requestState && headerOf(response.body.result.requestState).r,
        ),
      ).toEqual([1, 2, undefined]);
      expect(resultText(responses[2])).toBe('v1,v2');
    });

    it('answers -32603 with no state for the round that would emit a 3rd state (maxRounds 2)', async () => {
      const mark = logger.lines.length;
      const responses = await collect(twoRounds, 5, 2);
      expect(responses).toHaveLength(3);
      expect(responses[2].status).toBe(200);
      expect(responses[2].body.error).toEqual(INTERNAL_ERROR);
      expect(responses[2].text).not.toContain('requestState');
      expect(logger.text(mark)).toContain('request state could not be sealed (too_many_rounds)');
    });

    it("refuses to open a state whose round is over this instance's limit (sealed where the limit is higher)", async () => {
      const onMain = await collect(main, 5, 2);
      const third = onMain[2].body.result?.requestState as string;
      expect(headerOf(third).r).toBe(3);
      const mark = logger.lines.length;
      const response = await collectRetry(twoRounds, 5, third, 3, 'v3');
      expect(response.body.error).toEqual(INVALID_STATE);
      expect(logger.text(mark)).toContain('request state rejected: too_many_rounds');

      // Round 2 is within the limit there: it opens, and only the 3rd emission fails.
      const second = onMain[1].body.result?.requestState as string;
      const opened = await collectRetry(twoRounds, 5, second, 2, 'v2');
      expect(opened.body.error).toEqual(INTERNAL_ERROR);
    });
  });

  describe('request ids', () => {
    /** A string id of `length` characters, unique in this run. */
    const longId = (length: number) => {
      const tail = `-${freshId()}`;
      return `${'i'.repeat(length - tail.length)}${tail}`;
    };

    it('completes a two-round flow whose requests carry 5,000-character string ids', async () => {
      const [first, second, third] = [longId(5_000), longId(5_000), longId(5_000)];
      const one = await rawToolCall(
        main.url,
        'collect_rounds',
        { rounds: 2 },
        { id: first, capabilities: FORM },
      );
      const state1 = stateOf(one);
      // The header, key id, nonce, binding digests and flow id: a few hundred bytes, whatever the id.
      expect(state1.length).toBeLessThan(600);
      const two = await rawToolCall(
        main.url,
        'collect_rounds',
        { rounds: 2 },
        {
          id: second,
          capabilities: FORM,
          requestState: state1,
          inputResponses: stepAnswer(1, 'a'),
        },
      );
      const state2 = stateOf(two);
      expect(headerOf(state2)).toMatchObject({ r: 2 });

      // A retry reusing the id that emitted the state is still a replay.
      const mark = logger.lines.length;
      const replay = await rawToolCall(
        main.url,
        'collect_rounds',
        { rounds: 2 },
        {
          id: second,
          capabilities: FORM,
          requestState: state2,
          inputResponses: stepAnswer(2, 'b'),
        },
      );
      expect(replay.body.error).toEqual(INVALID_STATE);
      expect(logger.text(mark)).toContain('request state rejected: replayed_request_id');

      const done = await rawToolCall(
        main.url,
        'collect_rounds',
        { rounds: 2 },
        { id: third, capabilities: FORM, requestState: state2, inputResponses: stepAnswer(2, 'b') },
      );
      expect(done.body.id).toBe(third);
      expect(resultText(done)).toBe('a,b');
    });

    it('compares numeric ids by value (1e3 and 1000.0 are one id) and apart from strings ("1000")', async () => {
      const emitted = await rawToolCall(
        main.url,
        'fixture_probe',
        {},
        { id: '@id', capabilities: FORM, rawTokens: { '"@id"': '1e3' } },
      );
      const state = stateOf(emitted);
      const mark = logger.lines.length;
      const respelled = await rawToolCall(
        main.url,
        'fixture_probe',
        {},
        {
          id: '@id',
          capabilities: FORM,
          requestState: state,
          inputResponses: GO,
          rawTokens: { '"@id"': '1000.0' },
        },
      );
      expect(respelled.body.error).toEqual(INVALID_STATE);
      expect(logger.text(mark)).toContain('request state rejected: replayed_request_id');
      const asString = await rawToolCall(
        main.url,
        'fixture_probe',
        {},
        { id: '1000', capabilities: FORM, requestState: state, inputResponses: GO },
      );
      expect(resultText(asString)).toMatch(/^continued/);
    });
  });

  describe('application-protected state', () => {
    it("emits the string behind the flow's tagged prefix and hands the retry exactly that string", async () => {
      const emitted = 'handle:7f3a.ünïcödé/+=~ "quoted"';
      const first = await rawToolCall(main.url, 'fixture_app_state', { state: emitted });
      expect(first.body.result).toMatchObject({ resultType: 'input_required' });
      const wire = stateOf(first);
      expect(wire).toMatch(/^f1\.[0-9a-f-]{36}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}\./);
      expect(wire.endsWith(`.${emitted}`)).toBe(true);
      expect(first.body.result).not.toHaveProperty('inputRequests');
      const retry = await rawToolCall(
        main.url,
        'fixture_app_state',
        { state: emitted },
        { requestState: wire },
      );
      expect(JSON.parse(resultText(retry))).toEqual({ application: emitted, framework: null });
    });

    it('leaves validation to the application: any non-empty string arrives verbatim', async () => {
      const sealed = (await start(main, 'fixture_probe', {})).state;
      for (const state of [sealed, 'x', `${sealed}-TAMPERED`]) {
        const retry = await rawToolCall(
          main.url,
          'fixture_app_state',
          { state: 'other' },
          { requestState: state, headers: { Authorization: 'Bearer eve' } },
        );
        expect(JSON.parse(resultText(retry))).toEqual({ application: state, framework: null });
      }
    });

    it('emits up to 65,536 UTF-8 bytes of its own (behind the flow prefix)', async () => {
      const response = await rawToolCall(main.url, 'fixture_app_state', {
        state: 'é',
        repeat: 32_768,
      });
      const wire = stateOf(response);
      expect(wire.endsWith(`.${'é'.repeat(32_768)}`)).toBe(true);
      expect(Buffer.byteLength(wire)).toBeLessThanOrEqual(65_536 + 256);
      const retry = await rawToolCall(
        main.url,
        'fixture_app_state',
        { state: 'x' },
        { requestState: wire },
      );
      expect(JSON.parse(resultText(retry)).application).toBe('é'.repeat(32_768));
    });

    it('answers -32603 and emits nothing when the state is over 65,536 UTF-8 bytes (32,769 characters)', async () => {
      const mark = logger.lines.length;
      const response = await rawToolCall(main.url, 'fixture_app_state', {
        state: 'é',
        repeat: 32_769,
      });
      expect(response.body.error).toEqual(INTERNAL_ERROR);
      expect(response.text).not.toContain('éé');
      expect(logger.text(mark)).toContain('returned application state over 65536 bytes');
    });

    it.each([
      ['empty', '', 'malformed'],
      ['over 65,536 UTF-8 bytes', 'é'.repeat(32_769), 'too_large'],
    ])(
      'refuses an incoming state that is %s before the handler runs',
      async (_label, state, reason) => {
        const ran = runs(main, 'fixture_app_state');
        const mark = logger.lines.length;
        const response = await rawToolCall(
          main.url,
          'fixture_app_state',
          { state: 'x' },
          { requestState: state },
        );
        expect(response.body.error).toEqual(INVALID_STATE);
        expect(runs(main, 'fixture_app_state')).toBe(ran);
        expect(logger.text(mark)).toContain(`request state rejected: ${reason}`);
      },
    );

    it('accepts an incoming state of exactly 65,536 UTF-8 bytes', async () => {
      const state = 'é'.repeat(32_768);
      const response = await rawToolCall(
        main.url,
        'fixture_app_state',
        { state: 'x' },
        { requestState: state },
      );
      expect(JSON.parse(resultText(response)).application).toBe(state);
    });
  });

  describe('operations without request state (NONE)', () => {
    it('ignore an incoming state: both accessors empty, the handler runs', async () => {
      const sealed = (await start(main, 'fixture_probe', {})).state;
      for (const state of ['anything', sealed]) {
        const ran = runs(main, 'fixture_no_state');
        const response = await rawToolCall(
          main.url,
          'fixture_no_state',
          {},
          { requestState: state },
        );
        expect(JSON.parse(resultText(response))).toEqual({ application: null, framework: null });
        expect(runs(main, 'fixture_no_state')).toBe(ran + 1);
      }
    });

    it('answer -32603 when they return state anyway (a server bug)', async () => {
      const response = await rawToolCall(main.url, 'fixture_wrong_mode', {});
      expect(response.body.error).toEqual(INTERNAL_ERROR);
      expect(response.text).not.toContain('sneaky');
    });
  });

  describe('across instances', () => {
    it('continues a flow on a second instance with the same keyring', async () => {
      const { state } = await start(main, 'transfer_funds', TRANSFER);
      const [mainBefore, twinBefore] = [await transfers(main), await transfers(twin)];
      const done = await rawToolCall(twin.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        requestState: state,
        inputResponses: APPROVE,
      });
      expect(resultText(done)).toBe('Transferred 12.50 to bob');
      expect([await transfers(main), await transfers(twin)]).toEqual([mainBefore, twinBefore + 1]);
    });

    it('continues a three-round flow alternating between instances', async () => {
      let state: string | undefined;
      const servers = [main, twin, main, twin];
      let last: RawRoundResponse | undefined;
      for (const [step, server] of servers.entries()) {
        last = await rawToolCall(
          server.url,
          'collect_rounds',
          { rounds: 3 },
          {
            capabilities: FORM,
            requestState: state,
            inputResponses:
              step === 0
                ? undefined
                : { [`step-${step}`]: { action: 'accept', content: { value: `s${step}` } } },
          },
        );
        state = last.body.result?.requestState;
      }
      expect(resultText(last as RawRoundResponse)).toBe('s1,s2,s3');
    });

    it('continues on the second instance through the official client (manual mode)', async () => {
      const connect = async (server: TestServer) => {
        const client = await connectClient(
          server.url,
          {},
          { capabilities: FORM, inputRequired: { autoFulfill: false } },
        );
        clients.push(client);
        return client;
      };
      const [onMain, onTwin] = [await connect(main), await connect(twin)];
      const first = (await onMain.callTool(
        { name: 'transfer_funds', arguments: TRANSFER },
        { allowInputRequired: true },
      )) as unknown as {
        resultType: string;
        requestState: string;
        inputRequests: Record<string, unknown>;
      };
      expect(first.resultType).toBe('input_required');
      expect(Object.keys(first.inputRequests)).toEqual(['approval']);
      const retry = {
        name: 'transfer_funds',
        arguments: TRANSFER,
        inputResponses: APPROVE,
        requestState: first.requestState,
      };

      // Each official client numbers its requests from 0, so a fresh client's first call reuses
      // the id that emitted the state (0 on the other client) and is refused as a replay.
      const mark = logger.lines.length;
      const collided = await onTwin.callTool(retry).then(
        () => undefined,
        (error: { code: number; message: string }) => error,
      );
      expect(collided).toMatchObject(INVALID_STATE);
      expect(logger.text(mark)).toMatch(
        /\(request 0, flow [0-9a-f-]{36}\): request state rejected: replayed_request_id/,
      );

      const before = await transfers(twin);
      const result = await onTwin.callTool(retry);
      expect(result.content).toEqual([{ type: 'text', text: 'Transferred 12.50 to bob' }]);
      expect(await transfers(twin)).toBe(before + 1);
    });

    it("applies the opening instance's lifetime: a 60 s state is refused by a 1 s instance after 1.5 s", async () => {
      const { state } = await start(minuteLived, 'fixture_probe', {});
      expect(headerOf(state).exp - headerOf(state).iat).toBe(60_000);
      await sleep(1_500);
      await expectProbeRefused(shortLived, state, 'expired');

      // The issuing instance, within its own 60 s, still opens it.
      const opened = await probeRetry(minuteLived, state);
      expect(resultText(opened)).toMatch(/^continued/);
    });

    it('refuses the flow on an instance with another keyring', async () => {
      const { state } = await start(main, 'transfer_funds', TRANSFER);
      const response = await rawToolCall(impostor.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        requestState: state,
        inputResponses: APPROVE,
      });
      expect(response.body.error).toEqual(INVALID_STATE);
    });
  });

  describe('a custom protector (forRootAsync)', () => {
    const protector = () => custom.app.get(SigningStateProtector);

    async function retry(state: string, options: RawRoundOptions = {}): Promise<RawRoundResponse> {
      return rawToolCall(
        custom.url,
        'fixture_probe',
        {},
        { capabilities: FORM, requestState: state, inputResponses: GO, ...options },
      );
    }

    it('seals with the custom protector and completes the flow', async () => {
      const sealed = protector().sealed;
      const { state } = await start(custom, 'fixture_probe', {});
      expect(protector().sealed).toBe(sealed + 1);
      expect(state.split('.')).toHaveLength(3);
      expect(resultText(await retry(state))).toBe(
        'continued: {"application":null,"framework":{"step":1}}',
      );
    });

    it('passes the binding as associated data: other arguments or another tool are refused', async () => {
      const { state } = await start(custom, 'fixture_probe', {});
      const { state: otherTool } = await start(custom, 'fixture_same_name', {});
      const attempts: [string, RawRoundOptions][] = [
        [state, { rawTokens: { '"arguments":{}': '"arguments":{"pad":1}' } }],
        [otherTool, {}],
      ];
      for (const [attempt, options] of attempts) {
        const ran = runs(custom, 'fixture_probe');
        expect((await retry(attempt, options)).body.error).toEqual(INVALID_STATE);
        expect(runs(custom, 'fixture_probe')).toBe(ran);
      }
    });

    it('still enforces replay, size and lifetime rules around it', async () => {
      const first = await start(custom, 'fixture_probe', {});
      const cases: [string, string, RawRoundOptions][] = [
        ['replayed_request_id', first.state, { id: first.id }],
        ['too_large', `${first.state}${'A'.repeat(65_537)}`, {}],
        ['authentication_failed', flipMiddle(first.state), {}],
      ];
      for (const [reason, state, options] of cases) {
        const mark = logger.lines.length;
        const response = await retry(state, options);
        expect(response.body.error).toEqual(INVALID_STATE);
        expect(logger.text(mark)).toContain(`request state rejected: ${reason}`);
      }
      await sleep(SHORT_LIFETIME_MS + 50);
      const mark = logger.lines.length;
      expect((await retry(first.state)).body.error).toEqual(INVALID_STATE);
      expect(logger.text(mark)).toContain('request state rejected: expired');
    });

    it('answers -32602 when opening throws an arbitrary error, -32603 when sealing does; the message never leaks', async () => {
      const { state } = await start(custom, 'fixture_probe', {});
      const mark = logger.lines.length;
      protector().failOpen = true;
      let opened: RawRoundResponse;
      try {
        opened = await retry(state);
      } finally {
        protector().failOpen = false;
      }
      expect(opened.body.error).toEqual(INVALID_STATE);

      protector().failSeal = true;
      let sealed: RawRoundResponse;
      try {
        sealed = await rawToolCall(custom.url, 'fixture_probe', {}, { capabilities: FORM });
      } finally {
        protector().failSeal = false;
      }
      expect(sealed.body.error).toEqual(INTERNAL_ERROR);

      const log = logger.text(mark);
      expect(log).toContain('request state rejected: protector_failure');
      expect(log).toContain('request state could not be sealed (protector_failure)');
      expect(`${opened.text}${sealed.text}${log}`).not.toContain(PROTECTOR_FAILURE_SECRET);
    });
  });

  describe('logs', () => {
    it('log the reason of a tampered state, never the key material or the token', async () => {
      const { state } = await start(main, 'transfer_funds', TRANSFER);
      const tampered = flipMiddle(state);
      const id = freshId();
      const mark = logger.lines.length;
      const response = await rawToolCall(main.url, 'transfer_funds', TRANSFER, {
        id,
        capabilities: FORM,
        requestState: tampered,
        inputResponses: APPROVE,
      });
      expect(response.body.error).toEqual(INVALID_STATE);
      const log = logger.text(mark);
      expect(log).toContain(
        `[warn] MCP tools/call "transfer_funds" (request ${id}, state not opened): request state rejected: authentication_failed`,
      );
      expect(log).toContain('McpRequestState');
      expect(log).not.toContain(tampered);
      expect(log).not.toContain(state.split('.')[3]);
      for (const spelling of materialSpellings(keyring.keys.k1))
        expect(log).not.toContain(spelling);
    });

    it('never contained key material over the whole suite', () => {
      expect(logger.lines.length).toBeGreaterThan(10);
      const log = logger.text();
      for (const spelling of materialSpellings(keyring.keys.k1))
        expect(log).not.toContain(spelling);
    });
  });
});
