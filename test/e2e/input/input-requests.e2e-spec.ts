import type { Client } from '@modelcontextprotocol/client';
import { HandlerRuns } from '../../fixtures/handler-runs';
import { InputRequestFixturesModule } from './input-requests.fixtures';
import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import {
  expectInputRequired,
  expectMissingCapabilities,
  expectNoSideEffects,
  expectRefusal,
  INTERNAL_ERROR,
} from '../../utils/expect-rpc';
import {
  connectClient,
  rawRound,
  rawToolCall,
  resultText,
  rpcError,
  type ConnectOptions,
  type RawRoundOptions,
  type RawRoundResponse,
} from '../../utils/mcp';
import { TRANSFER } from '../../utils/sample-calls';

type ElicitParams = { mode?: string; message: string; url?: string; requestedSchema?: unknown };
type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

const FORM = { elicitation: {} };

function textOf(result: { content?: unknown }): string {
  const [block] = result.content as { type: string; text: string }[];
  expect(block.type).toBe('text');
  return block.text;
}

describe.each(ADAPTERS)('input requests over %s', (adapter) => {
  const logger = new CapturingLogger();
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startSampleApp(
      adapter,
      { MCP_KEYRING: newKeyring(['k1']).json },
      { extraImports: [InputRequestFixturesModule], logger },
    );
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
  });

  /** An official client that answers elicitations with `answer` (and records what it was asked). */
  async function elicitingClient(
    answer: (params: ElicitParams) => ElicitAnswer,
    options: ConnectOptions = {},
    headers: Record<string, string> = {},
  ): Promise<{ client: Client; asked: ElicitParams[] }> {
    const asked: ElicitParams[] = [];
    const capabilities = options.capabilities ?? { elicitation: { form: {}, url: {} } };
    const client = await connectClient(server.url, headers, {
      ...options,
      capabilities,
      setup: (c) => {
        // The SDK only lets a client handle what it declares.
        if (capabilities.elicitation !== undefined) {
          c.setRequestHandler('elicitation/create', (request) => {
            const params = request.params as ElicitParams;
            asked.push(params);
            return answer(params);
          });
        }
        options.setup?.(c);
      },
    });
    clients.push(client);
    return { client, asked };
  }

  async function sideEffects(): Promise<{ transfers: number; loginAttempts: number }> {
    return JSON.parse(resultText(await rawToolCall(server.url, 'side_effects', {}))) as {
      transfers: number;
      loginAttempts: number;
    };
  }

  const runs = (name: string) => server.app.get(HandlerRuns).count(name);
  /** `prompts/get` of `name`. */
  const getPrompt = (name: string, options: RawRoundOptions = {}) =>
    rawRound(server.url, 'prompts/get', { name }, options);
  /** `resources/read` of `uri`. */
  const readResource = (uri: string, options: RawRoundOptions = {}) =>
    rawRound(server.url, 'resources/read', { uri }, options);
  /** `tools/call` of `name` (without arguments unless given). */
  const call = (name: string, options: RawRoundOptions = {}, args: Record<string, unknown> = {}) =>
    rawToolCall(server.url, name, args, options);
  /** Runs `action`, asserting the sample app's transfers and login attempts did not change. */
  const unchanged = <T>(action: () => Promise<T>): Promise<T> =>
    expectNoSideEffects(sideEffects, action);

  describe('through the official client', () => {
    it('transfers after the user approves, asking once with the amount and recipient', async () => {
      const before = await sideEffects();
      const { client, asked } = await elicitingClient(() => ({
        action: 'accept',
        content: { approve: true },
      }));
      const result = await client.callTool({ name: 'transfer_funds', arguments: TRANSFER });
      expect(textOf(result)).toBe('Transferred 12.50 to bob');
      expect(asked).toEqual([
        {
          mode: 'form',
          message: 'Transfer 12.50 to bob?',
          requestedSchema: {
            type: 'object',
            properties: { approve: { type: 'boolean', title: 'Approve this transfer?' } },
            required: ['approve'],
          },
        },
      ]);
      expect(await sideEffects()).toEqual({ ...before, transfers: before.transfers + 1 });
    });

    it.each([
      ['declines', { action: 'decline' } as ElicitAnswer],
      ['cancels', { action: 'cancel' } as ElicitAnswer],
      ['answers approve: false', { action: 'accept', content: { approve: false } } as ElicitAnswer],
    ])('does not transfer when the user %s', async (_label, answer) => {
      const { client, asked } = await elicitingClient(() => answer);
      const result = await unchanged(() =>
        client.callTool({ name: 'transfer_funds', arguments: TRANSFER }),
      );
      expect(textOf(result)).toBe('Transfer declined');
      expect(asked).toHaveLength(1);
    });

    it('carries progress across three rounds in request state', async () => {
      const { client, asked } = await elicitingClient(({ message }) => {
        const step = /^Value (\d) of 3\?$/.exec(message)?.[1];
        return { action: 'accept', content: { value: 'abc'[Number(step) - 1] } };
      });
      const result = await client.callTool({ name: 'collect_rounds', arguments: { rounds: 3 } });
      expect(textOf(result)).toBe('a,b,c');
      expect(asked.map((params) => params.message)).toEqual([
        'Value 1 of 3?',
        'Value 2 of 3?',
        'Value 3 of 3?',
      ]);
    });

    it('follows a URL elicitation when the client supports it', async () => {
      const before = await sideEffects();
      const { client, asked } = await elicitingClient(() => ({ action: 'accept' }));
      const result = await client.callTool({ name: 'url_login', arguments: {} });
      expect(textOf(result)).toBe('Signed in');
      expect(asked).toEqual([
        expect.objectContaining({
          mode: 'url',
          message: 'Sign in to continue',
          url: 'https://login.example.com/authorize?flow=7f3a9c',
        }),
      ]);
      // One attempt per round: the round that asked and the round that completed.
      expect(await sideEffects()).toEqual({ ...before, loginAttempts: before.loginAttempts + 2 });
    });

    it('reports -32021 from the client call when it lacks the REQUIRED URL elicitation', async () => {
      const { client, asked } = await elicitingClient(() => ({ action: 'accept' }), {
        capabilities: { elicitation: { form: {} } },
      });
      const error = await unchanged(() =>
        rpcError(client.callTool({ name: 'url_login', arguments: {} })),
      );
      expect(error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { elicitation: { url: {} } } },
      });
      expect(asked).toEqual([]);
    });

    it('answers a form, a sampling and a roots request asked in one round', async () => {
      const seen: string[] = [];
      const { client } = await elicitingClient(
        () => {
          seen.push('elicitation');
          return { action: 'accept', content: { name: 'Ada' } };
        },
        {
          capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} },
          setup: (c) => {
            c.setRequestHandler('sampling/createMessage', () => {
              seen.push('sampling');
              return {
                role: 'assistant',
                content: { type: 'text', text: 'Hi!' },
                model: 'test-model',
              };
            });
            c.setRequestHandler('roots/list', () => {
              seen.push('roots');
              return { roots: [{ uri: 'file:///work', name: 'work' }, { uri: 'file:///tmp' }] };
            });
          },
        },
      );
      const result = await client.callTool({
        name: 'test_input_required_result_multiple_inputs',
        arguments: {},
      });
      expect(textOf(result)).toBe(
        'Received all inputs: name=Ada, greeting from test-model, 2 root(s)',
      );
      expect(seen.sort()).toEqual(['elicitation', 'roots', 'sampling']);
    });

    it('reads a resource that first asks for the client roots', async () => {
      const { client } = await elicitingClient(() => ({ action: 'cancel' }), {
        capabilities: { roots: {} },
        setup: (c) =>
          c.setRequestHandler('roots/list', () => ({
            roots: [{ uri: 'file:///repo' }, { uri: 'file:///notes' }],
          })),
      });
      const result = await client.readResource({ uri: 'fixture://workspace' });
      expect(result.contents).toEqual([
        {
          uri: 'fixture://workspace',
          mimeType: 'text/plain',
          text: 'workspace roots: file:///repo file:///notes',
        },
      ]);
    });

    it('gets a prompt that first elicits its context', async () => {
      const { client, asked } = await elicitingClient(() => ({
        action: 'accept',
        content: { context: 'release notes' },
      }));
      const result = await client.getPrompt({ name: 'test_input_required_result_prompt' });
      expect(result.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Prompt with context: release notes' } },
      ]);
      expect(asked.map((params) => params.message)).toEqual([
        'What context should the prompt use?',
      ]);
    });

    it('gets a prompt that samples the client model (REQUIRED sampling)', async () => {
      const { client } = await elicitingClient(() => ({ action: 'cancel' }), {
        capabilities: { sampling: {} },
        setup: (c) =>
          c.setRequestHandler('sampling/createMessage', () => ({
            role: 'assistant',
            content: { type: 'text', text: 'tides' },
            model: 'tiny-model',
          })),
      });
      const result = await client.getPrompt({ name: 'fixture_sampled_prompt' });
      expect(result.messages).toEqual([
        {
          role: 'user',
          content: { type: 'text', text: 'Write about tides (chosen by tiny-model)' },
        },
      ]);
    });
  });

  describe('exact numbers in input responses', () => {
    it('asks for the amount in a first round without request state (mode NONE)', async () => {
      const response = await call('exact_amount', { capabilities: FORM });
      expectInputRequired(response, {
        amount: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'Which amount?' },
        },
      });
      expect(response.body.result).not.toHaveProperty('requestState');
    });

    it.each(['3.50', '1e-7', '12345678901234567890.10', '-0.000', '1E+3'])(
      'receives %s exactly as written',
      async (digits) => {
        const response = await call('exact_amount', {
          capabilities: FORM,
          inputResponses: { amount: { action: 'accept', content: { amount: '@amount' } } },
          rawTokens: { '"@amount"': digits },
        });
        expect(response.status).toBe(200);
        expect(resultText(response)).toBe(digits);
      },
    );
  });

  describe('numeric request ids spelled differently', () => {
    it.each(['1.0', '1e3', '70E-1'])(
      'keeps the input responses of a request whose id is written %s',
      async (id) => {
        const response = await call('exact_amount', {
          id: '@id',
          capabilities: FORM,
          inputResponses: { amount: { action: 'accept', content: { amount: '@amount' } } },
          rawTokens: { '"@id"': id, '"@amount"': '3.50' },
        });
        expect(response.body.id).toBe(Number(id));
        expect(resultText(response)).toBe('3.50');
      },
    );
  });

  describe('capability gating', () => {
    it('refuses url_login to a form-only client before the handler runs (REQUIRED)', async () => {
      const response = await unchanged(() =>
        call('url_login', { capabilities: { elicitation: {} } }),
      );
      expectRefusal(response, 400, {
        code: -32021,
        message: 'Missing required client capabilities: elicitation.url',
        data: { requiredCapabilities: { elicitation: { url: {} } } },
      });
    });

    it('checks REQUIRED capabilities again on every round', async () => {
      const response = await unchanged(() =>
        call('url_login', {
          capabilities: { elicitation: { form: {} } },
          inputResponses: { login: { action: 'accept' } },
        }),
      );
      expectMissingCapabilities(response, { elicitation: { url: {} } });
    });

    it('asks a client with URL elicitation to follow an https URL', async () => {
      const before = await sideEffects();
      const response = await call('url_login', { capabilities: { elicitation: { url: {} } } });
      expectInputRequired(response, {
        login: {
          method: 'elicitation/create',
          params: {
            mode: 'url',
            message: 'Sign in to continue',
            url: 'https://login.example.com/authorize?flow=7f3a9c',
          },
        },
      });
      expect(await sideEffects()).toEqual({ ...before, loginAttempts: before.loginAttempts + 1 });
    });

    it('reports every missing REQUIRED capability in one -32021', async () => {
      const ran = runs('fixture_url_and_roots');
      const response = await call('fixture_url_and_roots', { capabilities: {} });
      expectMissingCapabilities(response, { elicitation: { url: {} }, roots: {} });
      expect(response.body.error?.message).toContain('elicitation.url');
      expect(response.body.error?.message).toContain('roots');
      expect(runs('fixture_url_and_roots')).toBe(ran);
    });

    it('checks REQUIRED capabilities before any state is opened', async () => {
      const mark = logger.lines.length;
      const response = await call('fixture_url_and_roots', {
        capabilities: {},
        requestState: 'not-a-sealed-state',
      });
      expectMissingCapabilities(response, { elicitation: { url: {} }, roots: {} });
      expect(
        logger.lines
          .slice(mark)
          .map((line) => line.text)
          .join('\n'),
      ).not.toContain('request state rejected');
    });

    it('gates sampling with tools on sampling.tools', async () => {
      const refused = await call('fixture_sampling_tools', { capabilities: { sampling: {} } });
      expectMissingCapabilities(refused, { sampling: { tools: {} } });
      const asked = await call('fixture_sampling_tools', {
        capabilities: { sampling: { tools: {} } },
      });
      expectInputRequired(asked, {
        plan: {
          method: 'sampling/createMessage',
          params: { maxTokens: 50, tools: [{ name: 'weather' }] },
        },
      });
    });

    it('lists only what is still missing', async () => {
      const response = await call('fixture_url_and_roots', {
        capabilities: { roots: {}, elicitation: { form: {} } },
      });
      expectMissingCapabilities(response, { elicitation: { url: {} } });
    });

    it('runs and asks for both when the client has both', async () => {
      const capabilities = { roots: {}, elicitation: { url: {} } };
      const first = await call('fixture_url_and_roots', { capabilities });
      expectInputRequired(first, {
        login: { method: 'elicitation/create' },
        roots: { method: 'roots/list', params: {} },
      });
      const second = await call('fixture_url_and_roots', {
        capabilities,
        inputResponses: { login: { action: 'accept' }, roots: { roots: [{ uri: 'file:///x' }] } },
      });
      expect(resultText(second)).toBe('login accept, 1 root(s)');
    });

    it('checks a CONDITIONAL capability when the request is emitted, discarding the result and its state', async () => {
      const ran = runs('fixture_conditional_form');
      const response = await call('fixture_conditional_form', { capabilities: { sampling: {} } });
      expectRefusal(response, 400, {
        code: -32021,
        message: 'Missing required client capabilities: elicitation.form',
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      });
      expect(response.text).not.toContain('requestState');
      expect(response.text).not.toContain('Favourite colour');
      // CONDITIONAL: the handler ran; only what it emitted was refused.
      expect(runs('fixture_conditional_form')).toBe(ran + 1);
    });

    it('does not count URL elicitation as form support', async () => {
      const response = await call('fixture_conditional_form', {
        capabilities: { elicitation: { url: {} } },
      });
      expectMissingCapabilities(response, { elicitation: { form: {} } });
    });

    it.each([
      ['a bare elicitation: {}', { elicitation: {} }],
      ['elicitation.form', { elicitation: { form: {} } }],
    ])(
      'emits the form request and its state to a client declaring %s',
      async (_label, capabilities) => {
        const response = await call('fixture_conditional_form', { capabilities });
        expectInputRequired(
          response,
          {
            colour: {
              method: 'elicitation/create',
              params: { mode: 'form', message: 'Favourite colour?' },
            },
          },
          { requestState: expect.any(String) },
        );
      },
    );

    it('lets a handler adapt to the declared capabilities', async () => {
      const response = await call('test_input_required_result_capabilities', {
        capabilities: { sampling: {} },
      });
      expect(Object.keys(response.body.result?.inputRequests ?? {})).toEqual(['sample_input']);
      const none = await call('test_input_required_result_capabilities', { capabilities: {} });
      expect(resultText(none)).toBe('The client declared neither elicitation nor sampling');
    });

    it('gates prompts (REQUIRED, before the handler) and resources (CONDITIONAL) alike', async () => {
      const ran = runs('fixture_sampled_prompt');
      const prompt = await getPrompt('fixture_sampled_prompt', { capabilities: FORM });
      expectMissingCapabilities(prompt, { sampling: {} });
      expect(runs('fixture_sampled_prompt')).toBe(ran);

      const resource = await readResource('fixture://workspace', { capabilities: FORM });
      expectMissingCapabilities(resource, { roots: {} });
    });
  });

  describe('undeclared input requests', () => {
    it.each(['fixture_undeclared_sampling', 'fixture_misdeclared_sampling'])(
      '%s: answers a bare -32603 and logs the key and type',
      async (tool) => {
        logger.clear();
        const ran = runs(tool);
        const response = await call(tool, { capabilities: { sampling: {}, elicitation: {} } });
        expectRefusal(response, 200, INTERNAL_ERROR);
        expect(response.text).not.toContain('summary');
        expect(response.text).not.toContain('Summarise');
        expect(runs(tool)).toBe(ran + 1);
        expect(logger.text()).toContain(
          `"${tool}" emitted undeclared input requests: summary (sampling)`,
        );
      },
    );
  });

  describe('input response validation', () => {
    const greet = (inputResponses: unknown): Promise<RawRoundResponse> =>
      call('test_input_required_result_elicitation', { capabilities: FORM, inputResponses });

    it('completes with a valid answer', async () => {
      expect(
        resultText(await greet({ user_name: { action: 'accept', content: { name: 'Ada' } } })),
      ).toBe('Hello, Ada!');
    });

    it('refuses an answer that is not an input response (user_name: 12345)', async () => {
      const response = await greet({ user_name: 12345 });
      expectRefusal(response, 200, {
        code: -32602,
        message: 'Invalid params: input response "user_name" is not a valid result',
        data: { key: 'user_name' },
      });
    });

    it.each([
      ['null', null],
      ['an array', [{ action: 'accept' }]],
      ['a string', 'accept'],
    ])('refuses inputResponses that is %s', async (_label, inputResponses) => {
      const response = await rawRound(
        server.url,
        'tools/call',
        { name: 'test_input_required_result_elicitation', arguments: {}, inputResponses },
        { capabilities: FORM },
      );
      expectRefusal(response, 200, {
        code: -32602,
        message: 'Invalid params: inputResponses must be an object',
      });
    });

    it.each([
      ['a nested object', { name: { first: 'Ada' } }],
      ['null', { name: null }],
      ['an array of numbers', { name: [1, 2] }],
    ])('refuses accepted content holding %s', async (_label, content) => {
      const response = await greet({ user_name: { action: 'accept', content } });
      expect(response.body.error).toMatchObject({ code: -32602, data: { key: 'user_name' } });
    });

    it('refuses an unknown action', async () => {
      const response = await greet({ user_name: { action: 'maybe' } });
      expect(response.body.error).toMatchObject({ code: -32602, data: { key: 'user_name' } });
    });

    it('accepts strings, numbers, booleans and string arrays as content', async () => {
      const response = await call('fixture_profile_form', {
        capabilities: FORM,
        inputResponses: {
          profile: {
            action: 'accept',
            content: { nickname: 'ada', age: '@age', newsletter: false, topics: ['nest', 'mcp'] },
          },
        },
        rawTokens: { '"@age"': '36.0' },
      });
      expect(resultText(response)).toBe(
        '{"action":"accept","content":{"nickname":"ada","age":36.0,"newsletter":false,"topics":["nest","mcp"]},"keys":["profile"]}',
      );
    });

    it('converts accepted content to a validated DTO: exact digits for strings, numbers for numbers', async () => {
      const response = await call('fixture_typed_answer', {
        capabilities: FORM,
        inputResponses: {
          order: { action: 'accept', content: { amount: '@amount', quantity: '@quantity' } },
        },
        rawTokens: { '"@amount"': '19.90', '"@quantity"': '3' },
      });
      expect(resultText(response)).toBe('OrderAnswer: amount string 19.90, quantity number 3');
    });

    it('refuses accepted content that fails the DTO with -32602 and the messages', async () => {
      const response = await call('fixture_typed_answer', {
        capabilities: FORM,
        inputResponses: {
          order: { action: 'accept', content: { amount: 'lots', quantity: '@quantity' } },
        },
        rawTokens: { '"@quantity"': '11' },
      });
      expectRefusal(response, 200, {
        code: -32602,
        message: 'Invalid input response "order"',
        data: {
          key: 'order',
          errors: expect.arrayContaining([
            'amount must be a number string',
            'quantity must not be greater than 10',
          ]),
        },
      });
    });

    it('ignores keys that were not asked for and completes', async () => {
      const response = await greet({
        user_name: { action: 'accept', content: { name: 'Ada' } },
        something_else: { action: 'decline' },
        roots_too: { roots: [] },
      });
      expect(resultText(response)).toBe('Hello, Ada!');
    });

    it('asks again when the response is missing', async () => {
      for (const inputResponses of [
        {},
        { other_key: { action: 'accept', content: { name: 'Ada' } } },
      ]) {
        expectInputRequired(await greet(inputResponses), {
          user_name: { method: 'elicitation/create' },
        });
      }
    });

    it('ends normally on decline', async () => {
      expect(resultText(await greet({ user_name: { action: 'decline' } }))).toBe(
        'No name given (decline)',
      );
    });

    /** Round 2 of a transfer with `inputResponses`, under the state round 1 emitted. */
    async function transferRetry(inputResponses: unknown) {
      const first = await call('transfer_funds', { capabilities: FORM }, TRANSFER);
      const state = first.body.result?.requestState;
      const retry = await unchanged(() =>
        call(
          'transfer_funds',
          { capabilities: FORM, requestState: state, inputResponses },
          TRANSFER,
        ),
      );
      return { state, retry };
    }

    it('refuses an answer of another kind than the one asked for the key (framework state)', async () => {
      const { retry } = await transferRetry({ approval: { roots: [] } });
      expect(retry.body.error).toMatchObject({ code: -32602, data: { key: 'approval' } });
    });

    it('refuses accepted content that fails the DTO, naming the validation errors', async () => {
      const { retry } = await transferRetry({
        approval: { action: 'accept', content: { approve: 'yes' } },
      });
      expectRefusal(retry, 200, {
        code: -32602,
        message: 'Invalid input response "approval"',
        data: { key: 'approval', errors: ['approve must be a boolean value'] },
      });
    });

    it('re-asks (with fresh state) when the answer for the asked key is missing', async () => {
      const { state, retry } = await transferRetry({
        approve: { action: 'accept', content: { approve: true } },
      });
      expectInputRequired(
        retry,
        { approval: { method: 'elicitation/create' } },
        { requestState: expect.any(String) },
      );
      expect(retry.body.result?.requestState).not.toBe(state);
    });
  });

  describe('form safety', () => {
    it('lets a harmless field through (control)', async () => {
      const response = await call(
        'fixture_secret_form',
        { capabilities: FORM },
        { field: 'nickname' },
      );
      expectInputRequired(response, { credentials: { method: 'elicitation/create' } });
    });

    it.each([
      [{ field: 'password' }, 'password'],
      [{ field: 'apiKey' }, 'API key or token'],
      [{ field: 'api_key' }, 'API key or token'],
      [{ field: 'label', title: 'API token' }, 'API key or token'],
      [{ field: 'cardNumber' }, 'payment card or bank account'],
      [{ field: 'otp' }, 'verification code'],
    ])(
      'refuses to elicit %j through a form: bare -32603, reason only in the log',
      async (args, concept) => {
        logger.clear();
        const response = await call('fixture_secret_form', { capabilities: FORM }, args);
        expectRefusal(response, 200, INTERNAL_ERROR);
        expect(response.text).not.toContain(args.field);
        expect(response.text).not.toMatch(/elicit|secret|URL|InvalidInputRequestError|\bat\b/i);
        expect(logger.text()).toContain(`asks for a secret (${concept})`);
        expect(logger.text()).toContain('use a URL elicitation');
      },
    );

    it('refuses format: "password" too, explained as a secret rather than a bad format', async () => {
      logger.clear();
      const response = await call(
        'fixture_secret_form',
        { capabilities: FORM },
        { field: 'hidden', format: 'password' },
      );
      expectRefusal(response, 200, INTERNAL_ERROR);
      expect(logger.text()).toContain('property "hidden" asks for a secret (password)');
    });
  });

  describe('URL elicitation safety', () => {
    const URL_CAPS = { elicitation: { url: {} } };

    it('sends an https URL with an opaque handle (control)', async () => {
      const response = await call(
        'fixture_url_policy',
        { capabilities: URL_CAPS },
        { url: 'https://pay.example.com/flows/9f2c' },
      );
      expectInputRequired(response, {
        go: {
          method: 'elicitation/create',
          params: { mode: 'url', url: 'https://pay.example.com/flows/9f2c' },
        },
      });
    });

    it.each([
      ['plain http', 'http://pay.example.com/flows/9f2c', 'must use an https URL'],
      ['http://localhost outside development', 'http://localhost:3000/cb', 'must use an https URL'],
      [
        'user:password@',
        'https://bob:hunter2@pay.example.com/flows/9f2c',
        'must not carry userinfo',
      ],
      [
        'a token in the query',
        'https://pay.example.com/cb?access_token=abc123',
        'query parameter "access_token" looks like',
      ],
      ['a relative URL', '/flows/9f2c', 'needs an absolute URL'],
    ])('refuses %s: bare -32603, reason only in the log', async (_label, url, reason) => {
      logger.clear();
      const response = await call('fixture_url_policy', { capabilities: URL_CAPS }, { url });
      expectRefusal(response, 200, INTERNAL_ERROR);
      expect(response.text).not.toContain(url);
      expect(logger.text()).toContain(reason);
      expect(logger.text()).not.toContain('hunter2');
    });
  });

  describe('building results', () => {
    it('builds a valid result (control)', async () => {
      const response = await call(
        'fixture_bad_builder',
        { capabilities: FORM },
        { variant: 'valid' },
      );
      expect(response.body.result?.resultType).toBe('input_required');
    });

    it.each([
      ['duplicate-key', 'Duplicate input request key "name"'],
      ['empty-key', 'Input request keys must be non-empty strings'],
      ['nothing', 'needs at least one input request or a request state'],
      [
        'nested-schema',
        'property "address": must be a string, number, integer, boolean or string-array property',
      ],
    ])('answers a bare -32603 for an invalid result (%s)', async (variant, reason) => {
      logger.clear();
      const response = await call('fixture_bad_builder', { capabilities: FORM }, { variant });
      expectRefusal(response, 200, INTERNAL_ERROR);
      expect(logger.text()).toContain(reason);
    });
  });

  describe('prompts and resources over raw HTTP', () => {
    it('reads a resource in two rounds: roots/list, then the contents', async () => {
      const first = await readResource('fixture://workspace', { capabilities: { roots: {} } });
      expect(first.body.result).toEqual({
        resultType: 'input_required',
        inputRequests: { roots: { method: 'roots/list', params: {} } },
        _meta: expect.any(Object),
      });
      const second = await readResource('fixture://workspace', {
        capabilities: { roots: {} },
        inputResponses: { roots: { roots: [{ uri: 'file:///srv', name: 'srv' }] } },
      });
      expect(second.body.result).toMatchObject({
        resultType: 'complete',
        contents: [
          {
            uri: 'fixture://workspace',
            mimeType: 'text/plain',
            text: 'workspace roots: file:///srv',
          },
        ],
      });
    });

    it('gets a prompt in two rounds: elicitation, then the messages', async () => {
      const first = await getPrompt('test_input_required_result_prompt', { capabilities: FORM });
      expect(first.body.result).toMatchObject({
        resultType: 'input_required',
        inputRequests: { user_context: { method: 'elicitation/create' } },
      });
      const second = await getPrompt('test_input_required_result_prompt', {
        capabilities: FORM,
        inputResponses: { user_context: { action: 'accept', content: { context: 'ops' } } },
      });
      expect(second.body.result).toMatchObject({
        resultType: 'complete',
        messages: [{ role: 'user', content: { type: 'text', text: 'Prompt with context: ops' } }],
      });
    });

    it('refuses a malformed response to a prompt with -32602', async () => {
      const response = await getPrompt('test_input_required_result_prompt', {
        capabilities: FORM,
        inputResponses: {
          user_context: { action: 'accept', content: { context: { nested: true } } },
        },
      });
      expect(response.body.error).toMatchObject({ code: -32602, data: { key: 'user_context' } });
    });
  });
});
