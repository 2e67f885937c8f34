import type { Client } from '@modelcontextprotocol/client';
import { McpModule } from '../../../src/index';
import { HandlerRuns } from '../../fixtures/handler-runs';
import {
  nameQuestion,
  planQuestion,
  ReplayFixturesModule,
  ReplayWithApplicationState,
  ReplayWithoutDeclarations,
} from './replay.fixtures';
import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, startupError, type TestServer } from '../../utils/bootstrap';
import {
  connectClient,
  freshId,
  rawToolCall,
  resultText,
  rpcError,
  stateOf,
  type RawRoundResponse,
} from '../../utils/mcp';
import { INVALID_STATE, INTERNAL_ERROR } from '../../utils/expect-rpc';
import { serverForSuite } from '../../utils/suite-server';

type ElicitParams = { mode?: string; message: string; requestedSchema?: unknown };
type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

const FORM = { elicitation: {} };
const ALL = { elicitation: { form: {} }, sampling: {}, roots: {} };
const NAMED = (name: string) => ({ action: 'accept', content: { name } });

function textOf(result: { content?: unknown }): string {
  const [block] = result.content as { type: string; text: string }[];
  expect(block.type).toBe('text');
  return block.text;
}

/** The state with one base64url character in the middle of its ciphertext changed. */
function flipMiddle(state: string): string {
  const at = state.lastIndexOf('.') + Math.floor((state.length - state.lastIndexOf('.')) / 2);
  return `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
}

describe.each(ADAPTERS)('replay-style asks over %s', (adapter) => {
  const logger = new CapturingLogger();
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    const keyring = newKeyring(['k1']);
    server = await startTestServer(
      adapter,
      {
        imports: [
          McpModule.forRoot({ keyring: { active: keyring.active, keys: keyring.keys } }),
          ReplayFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
  });

  const runs = (name: string) => server.app.get(HandlerRuns).count(name);

  /** An official client in automatic mode, answering every form with `answer` and recording the forms. */
  async function automaticClient(
    answer: (params: ElicitParams) => ElicitAnswer,
    capabilities: Record<string, unknown> = FORM,
    seen: string[] = [],
  ): Promise<{ client: Client; asked: ElicitParams[] }> {
    const asked: ElicitParams[] = [];
    const client = await connectClient(
      server.url,
      {},
      {
        capabilities,
        setup: (c) => {
          c.setRequestHandler('elicitation/create', (request) => {
            const params = request.params as ElicitParams;
            asked.push(params);
            seen.push('elicitation');
            return answer(params);
          });
          if (capabilities.sampling !== undefined) {
            c.setRequestHandler('sampling/createMessage', () => {
              seen.push('sampling');
              return { role: 'assistant', content: { type: 'text', text: 'Hello!' }, model: 'm1' };
            });
          }
          if (capabilities.roots !== undefined) {
            c.setRequestHandler('roots/list', () => {
              seen.push('roots');
              return { roots: [{ uri: 'file:///a' }, { uri: 'file:///b', name: 'b' }] };
            });
          }
        },
      },
    );
    clients.push(client);
    return { client, asked };
  }

  describe('through the official client in automatic mode', () => {
    it('completes a two-ask tool: asks the name, then the plan, and acts once after the last ask', async () => {
      const [before, beforeRuns] = [runs('replay_signup:done'), runs('replay_signup:run')];
      const { client, asked } = await automaticClient((params) =>
        params.message === nameQuestion.message
          ? (NAMED('Ada') as ElicitAnswer)
          : { action: 'accept', content: { plan: 'pro' } },
      );
      const result = await client.callTool({ name: 'replay_signup', arguments: {} });
      expect(textOf(result)).toBe('Welcome Ada on pro');
      expect(asked).toEqual([
        { mode: 'form', ...nameQuestion },
        { mode: 'form', ...planQuestion },
      ]);
      // Three rounds, each running the method from the top; the side effect once.
      expect(runs('replay_signup:run')).toBe(beforeRuns + 3);
      expect(runs('replay_signup:done')).toBe(before + 1);
    });

    it('returns a decline to the handler like any answer', async () => {
      const before = runs('replay_signup:done');
      const { client, asked } = await automaticClient(() => ({ action: 'decline' }));
      const result = await client.callTool({ name: 'replay_signup', arguments: {} });
      expect(textOf(result)).toBe('Cancelled');
      expect(asked).toHaveLength(1);
      expect(runs('replay_signup:done')).toBe(before);
    });

    it('asks the three asks of one Promise.all in one round and completes with their answers', async () => {
      const seen: string[] = [];
      const { client } = await automaticClient(() => NAMED('Lin') as ElicitAnswer, ALL, seen);
      const before = runs('replay_together:run');
      const result = await client.callTool({ name: 'replay_together', arguments: {} });
      expect(textOf(result)).toBe('Lin | Hello! | 2 root(s)');
      expect(seen.sort()).toEqual(['elicitation', 'roots', 'sampling']);
      expect(runs('replay_together:run')).toBe(before + 2);
    });

    it('serves replay-style prompts and resources too', async () => {
      const { client } = await automaticClient(
        () => ({ action: 'accept', content: { topic: 'tides' } }),
        ALL,
      );
      const prompt = await client.getPrompt({ name: 'replay_prompt' });
      expect(prompt.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Write about tides' } },
      ]);
      const resource = await client.readResource({ uri: 'replay://roots' });
      expect(resource.contents).toEqual([{ uri: 'replay://roots', text: 'file:///a file:///b' }]);
    });

    it('carries the handler’s own framework state and answers beside the ledger', async () => {
      const { client, asked } = await automaticClient((params) =>
        params.message === nameQuestion.message
          ? (NAMED('Kai') as ElicitAnswer)
          : { action: 'accept', content: { confirm: true } },
      );
      const result = await client.callTool({ name: 'replay_mixed', arguments: {} });
      expect(textOf(result)).toBe('Kai: accept');
      expect(asked.map((params) => params.message)).toEqual([
        nameQuestion.message,
        'Is Kai right?',
      ]);
      // framework() never shows the ledger: nothing in rounds 1–2, the method's own JSON in round 3.
      expect(runs('replay_mixed:own=null')).toBe(2);
      expect(runs('replay_mixed:own={"confirming":"Kai"}')).toBe(1);
    });
  });

  describe('on the wire', () => {
    /** A round of replay_together: the first, or the next after `previous` with `answers`. */
    const together = (previous?: RawRoundResponse, answers?: Record<string, unknown>) =>
      rawToolCall(
        server.url,
        'replay_together',
        {},
        {
          capabilities: ALL,
          ...(previous && { requestState: stateOf(previous), inputResponses: answers }),
        },
      );

    it('asks one Promise.all as one input-required result with a key per ask', async () => {
      const response = await together();
      expect(response.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: {
          'ask-1': { method: 'elicitation/create', params: { mode: 'form', ...nameQuestion } },
          'ask-2': { method: 'sampling/createMessage', params: { maxTokens: 20 } },
          'ask-3': { method: 'roots/list', params: {} },
        },
      });
      expect(Object.keys(response.body.result?.inputRequests ?? {})).toEqual([
        'ask-1',
        'ask-2',
        'ask-3',
      ]);
      expect(typeof response.body.result?.requestState).toBe('string');
    });

    it('re-asks only what is still unanswered, and ignores answers to keys it did not ask', async () => {
      const first = await together();
      const second = await together(first, { 'ask-1': NAMED('Ola'), 'ask-9': NAMED('Eve') });
      expect(Object.keys(second.body.result?.inputRequests ?? {})).toEqual(['ask-2', 'ask-3']);
      const third = await together(second, {
        'ask-2': { role: 'assistant', content: { type: 'text', text: 'Hey' }, model: 'm' },
        'ask-3': { roots: [] },
      });
      expect(resultText(third)).toBe('Ola | Hey | 0 root(s)');
    });

    it('refuses answers too large to carry to the next round with -32602', async () => {
      const first = await together();
      const second = await together(first, { 'ask-1': NAMED('x'.repeat(60_000)) });
      expect(second.body.error).toEqual({
        code: -32602,
        message: 'Invalid params: the answers so far are too large to carry to the next round',
        data: { limit: 49_152 },
      });
    });

    // Issue #17 (item 9): answers inside the bound that the ledger's own bytes push past it, or
    // that grow past it when escaped, got -32603 and an ERROR log; they get the documented -32602.
    it.each([
      ['one 48,900-character answer (inside the bound, not with the ledger)', 'x'.repeat(48_900)],
      ['16,000 quotes (inside the bound as written, past it escaped)', '"'.repeat(16_000)],
    ])('refuses %s with the documented -32602, logged as no error', async (_label, name) => {
      const first = await together();
      const mark = logger.lines.length;
      const second = await together(first, { 'ask-1': NAMED(name) });
      expect(second.body.error).toEqual({
        code: -32602,
        message: 'Invalid params: the answers so far are too large to carry to the next round',
        data: { limit: 49_152 },
      });
      expect(logger.lines.slice(mark).filter((line) => line.level === 'error')).toEqual([]);
    });

    it('refuses a handler that asks a different question at an answered slot with -32602', async () => {
      const first = await rawToolCall(server.url, 'replay_shifty', {}, { capabilities: FORM });
      expect(Object.keys(first.body.result?.inputRequests ?? {})).toEqual(['ask-1']);
      const before = runs('replay_shifty:done');
      const mark = logger.lines.length;
      const second = await rawToolCall(
        server.url,
        'replay_shifty',
        {},
        {
          capabilities: FORM,
          requestState: stateOf(first),
          inputResponses: { 'ask-1': { action: 'accept', content: { confirm: true } } },
        },
      );
      expect(second.body.error).toEqual({
        code: -32602,
        message:
          'Invalid params: the question at "ask-1" differs from the one recorded for it; a replay-style handler must ask the same questions in the same order every round',
        data: { key: 'ask-1' },
      });
      expect(runs('replay_shifty:done')).toBe(before);
      expect(logger.text(mark)).toContain('the question at "ask-1" differs');
    });

    it.each([
      ['altered in one byte', (state: string) => ({ state: flipMiddle(state) })],
      ['presented for other arguments', (state: string) => ({ state, args: { extra: 1 } })],
      ['presented to another tool', (state: string) => ({ state, tool: 'replay_mixed' })],
      ['sent again under the id that emitted it', (state: string, id: number) => ({ state, id })],
    ])('refuses a ledger state %s like any state', async (_label, tamper) => {
      const emittingId = freshId();
      const first = await rawToolCall(
        server.url,
        'replay_signup',
        {},
        { capabilities: FORM, id: emittingId },
      );
      const changed = tamper(stateOf(first), emittingId) as {
        state: string;
        args?: Record<string, unknown>;
        tool?: string;
        id?: number;
      };
      const before = runs('replay_signup:run');
      const response = await rawToolCall(
        server.url,
        changed.tool ?? 'replay_signup',
        changed.args ?? {},
        {
          capabilities: FORM,
          id: changed.id,
          requestState: changed.state,
          inputResponses: { 'ask-1': NAMED('M') },
        },
      );
      expect(response.body.error).toEqual(INVALID_STATE);
      expect(runs('replay_signup:run')).toBe(before);
    });

    it('accepts a single-use replay state once: a replayed round is refused and acts once', async () => {
      const first = await rawToolCall(
        server.url,
        'replay_once',
        { path: '/tmp/x' },
        { capabilities: FORM },
      );
      const state = stateOf(first);
      const confirm = () =>
        rawToolCall(
          server.url,
          'replay_once',
          { path: '/tmp/x' },
          {
            capabilities: FORM,
            id: freshId(),
            requestState: state,
            inputResponses: { 'ask-1': { action: 'accept', content: { confirm: true } } },
          },
        );
      const before = runs('replay_once:done');
      expect(resultText(await confirm())).toBe('Deleted /tmp/x');
      expect((await confirm()).body.error).toEqual(INVALID_STATE);
      expect(runs('replay_once:done')).toBe(before + 1);
    });

    it('refuses an undeclared ask like an undeclared returned request (-32603, logged)', async () => {
      const mark = logger.lines.length;
      const response = await rawToolCall(
        server.url,
        'replay_undeclared',
        {},
        { capabilities: ALL },
      );
      expect(response.body.error).toEqual(INTERNAL_ERROR);
      expect(logger.text(mark)).toContain(
        'MCP tools/call "replay_undeclared" emitted undeclared input requests: ask-1 (roots)',
      );
    });

    it('gates asks on client capabilities: a client without sampling gets -32021', async () => {
      const response = await rawToolCall(
        server.url,
        'replay_together',
        {},
        { capabilities: { elicitation: {}, roots: {} } },
      );
      expect(response.body.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { sampling: {} } },
      });
    });

    it('answers ctx.elicit() in an operation without replay: true with -32603 and says why in the log', async () => {
      const mark = logger.lines.length;
      const { client } = await automaticClient(() => NAMED('X') as ElicitAnswer);
      const error = await rpcError(client.callTool({ name: 'not_replay', arguments: {} }));
      expect(error).toMatchObject(INTERNAL_ERROR);
      expect(logger.text(mark)).toContain(
        "ctx.elicit() needs `replay: true` in the operation's decorator options",
      );
    });
  });

  describe('startup', () => {
    it.each([
      [
        'without a declaration',
        ReplayWithoutDeclarations,
        'replay needs at least one @McpMayRequestInput declaration',
      ],
      [
        'with application-protected state',
        ReplayWithApplicationState,
        'requestState must be FRAMEWORK_PROTECTED or omitted, not "application"',
      ],
    ])('fails for replay: true %s', async (_label, provider, message) => {
      const error = await startupError(adapter, {
        imports: [McpModule.forRoot({})],
        providers: [provider],
      });
      expect(error?.name).toBe('InvalidOperationDefinitionError');
      expect(error?.message).toContain(message);
    });
  });

  describe('the sample app', () => {
    const sample = serverForSuite(() =>
      startSampleApp(adapter, { MCP_KEYRING: newKeyring(['k1']).json }),
    );

    it('onboards a user with two ctx.elicit calls through the official client', async () => {
      const asked: string[] = [];
      const client = await connectClient(
        sample.url,
        {},
        {
          capabilities: FORM,
          setup: (c) =>
            c.setRequestHandler('elicitation/create', (request): ElicitAnswer => {
              const { message } = request.params as ElicitParams;
              asked.push(message);
              return message.startsWith('What should we call you')
                ? { action: 'accept', content: { name: 'Grace' } }
                : { action: 'accept', content: { plan: 'team' } };
            }),
        },
      );
      clients.push(client);
      const result = await client.callTool({ name: 'onboard_user', arguments: {} });
      expect(textOf(result)).toBe('Welcome, Grace! You are on the team plan.');
      expect(asked).toEqual(['What should we call you?', 'Which plan would you like, Grace?']);
    });
  });
});
