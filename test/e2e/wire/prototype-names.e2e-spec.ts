import fc from 'fast-check';
import { PROTOTYPE_NAMES, PrototypeNameFixturesModule, ownKeys } from './prototype-names.fixtures';
import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ALL_ADAPTERS, type TestServer } from '../../utils/bootstrap';
import {
  freshId,
  rawRound,
  resultText,
  type RawRoundOptions,
  type RawRoundResponse,
} from '../../utils/mcp';
import { TRANSFER } from '../../utils/sample-calls';

const ALICE = { Authorization: 'Bearer alice' };
const FORM = { elicitation: {} };
const TICKET = { title: 'Printer on fire', priority: 'high' };
const APPROVE = { action: 'accept', content: { approve: true } };
const names = PROTOTYPE_NAMES.map((name) => [name] as const);

/**
 * Whether `name`, sent as a key of `params.arguments`, reaches validators and handlers: always,
 * since operations receive the arguments as the module parsed them (`__proto__` is an ordinary
 * key there), not the SDK's validated copy.
 */
function reachesArguments(_name: string): boolean {
  return true;
}

/** The first text block of a prompt result. */
function promptText(response: RawRoundResponse): string {
  const messages = (response.body.result as { messages?: { content: { text?: string } }[] })
    ?.messages;
  const text = messages?.[0]?.content.text;
  if (text === undefined) throw new Error(`expected a prompt result, got ${response.text}`);
  return text;
}

/** The text of a resource read. */
function resourceText(response: RawRoundResponse): string {
  const contents = (response.body.result as { contents?: { text?: string }[] })?.contents;
  const text = contents?.[0]?.text;
  if (text === undefined) throw new Error(`expected a resource, got ${response.text}`);
  return text;
}

function completionValues(response: RawRoundResponse): string[] {
  const values = (response.body.result as { completion?: { values?: string[] } })?.completion
    ?.values;
  if (!values) throw new Error(`expected a completion, got ${response.text}`);
  return values;
}

describe.each(ALL_ADAPTERS)('names from Object.prototype in client input over %s', (adapter) => {
  const logger = new CapturingLogger();
  let server: TestServer;

  beforeAll(async () => {
    server = await startSampleApp(
      adapter,
      { MCP_KEYRING: newKeyring(['k1']).json },
      { extraImports: [PrototypeNameFixturesModule], logger },
    );
  });

  /** A new round-1 framework state of `transfer_funds`, for Bearer alice (it is single-use). */
  async function transferState(): Promise<string> {
    const first = await round(
      'tools/call',
      { name: 'transfer_funds', arguments: TRANSFER },
      { headers: ALICE, capabilities: FORM },
    );
    const state = first.body.result?.requestState;
    if (typeof state !== 'string') throw new Error(`expected a requestState, got ${first.text}`);
    return state;
  }

  afterAll(async () => {
    await server?.close();
  });

  /**
   * One raw round that must not fail as a bug: never HTTP 500, never -32603, and nothing logged
   * at error level or with a stack trace.
   */
  async function round(
    method: string,
    params: Record<string, unknown>,
    options: RawRoundOptions = {},
  ): Promise<RawRoundResponse> {
    logger.clear();
    const response = await rawRound(server.url, method, params, { id: freshId(), ...options });
    const log = logger.text();
    const failure = `${method} ${JSON.stringify(params)} answered ${response.text}\n${log}`;
    if (response.status >= 500 || response.body.error?.code === -32603) throw new Error(failure);
    if (/^\s+at /m.test(log) || /\[(error|fatal)\]/.test(log)) throw new Error(failure);
    return response;
  }

  async function retryTransfer(inputResponses: unknown): Promise<RawRoundResponse> {
    const requestState = await transferState();
    return round(
      'tools/call',
      { name: 'transfer_funds', arguments: TRANSFER },
      { headers: ALICE, capabilities: FORM, requestState, inputResponses },
    );
  }

  describe.each(names)('%s', (name) => {
    it('as a tool name: -32602 Unknown tool', async () => {
      const response = await round('tools/call', { name, arguments: {} });
      expect(response.body.error).toEqual({
        code: -32602,
        message: `Unknown tool: ${name}`,
        data: { name },
      });
    });

    it('as a prompt name: -32602 Unknown prompt', async () => {
      const response = await round('prompts/get', { name });
      expect(response.body.error).toEqual({
        code: -32602,
        message: `Unknown prompt: ${name}`,
        data: { name },
      });
    });

    it('as a resource URI: -32602 Resource not found', async () => {
      const response = await round('resources/read', { uri: name });
      expect(response.body.error).toEqual({
        code: -32602,
        message: 'Resource not found',
        data: { uri: name },
      });
    });

    it('as a URI template variable: read like any other value', async () => {
      const sample = await round('resources/read', { uri: `test://template/${name}/data` });
      expect(JSON.parse(resourceText(sample))).toMatchObject({ id: name });
      const fixture = await round('resources/read', { uri: `proto://items/${name}` });
      expect(resourceText(fixture)).toBe(`item ${name}`);
    });

    it('as a prompt argument name: an extra argument, ignored', async () => {
      const response = await round('prompts/get', {
        name: 'test_prompt_with_arguments',
        arguments: ownKeys([
          ['arg1', 'a'],
          ['arg2', 'b'],
          [name, 'x'],
        ]),
      });
      expect(promptText(response)).toBe("Prompt with arguments: arg1='a', arg2='b'");
    });

    it('as a completion argument name: no suggestions', async () => {
      const prompt = await round('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name, value: '' },
      });
      expect(completionValues(prompt)).toEqual([]);
      const template = await round('completion/complete', {
        ref: { type: 'ref/resource', uri: 'proto://items/{id}' },
        argument: { name, value: '' },
      });
      expect(completionValues(template)).toEqual([]);
    });

    it('as a completion context argument: the completer still answers', async () => {
      const response = await round('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'test' },
        context: { arguments: ownKeys([[name, 'x']]) },
      });
      expect(completionValues(response)).toEqual(['test', 'testValue1', 'testing']);
    });

    it('as a completion reference: -32602 Unknown prompt / resource template', async () => {
      const prompt = await round('completion/complete', {
        ref: { type: 'ref/prompt', name },
        argument: { name: 'arg1', value: '' },
      });
      expect(prompt.body.error).toEqual({
        code: -32602,
        message: `Unknown prompt: ${name}`,
        data: { name },
      });
      const template = await round('completion/complete', {
        ref: { type: 'ref/resource', uri: name },
        argument: { name: 'id', value: '' },
      });
      expect(template.body.error).toEqual({
        code: -32602,
        message: `Unknown resource template: ${name}`,
        data: { uri: name },
      });
    });

    it('as an input-response key on a framework-state retry: not an answer, asked again', async () => {
      const response = await retryTransfer(ownKeys([[name, APPROVE]]));
      expect(response.body.result?.resultType).toBe('input_required');
      expect(Object.keys(response.body.result?.inputRequests ?? {})).toEqual(['approval']);
    });

    it('as an extra input-response key next to the answer: the answer counts', async () => {
      const response = await retryTransfer(
        ownKeys<object>([
          ['approval', APPROVE],
          [name, { action: 'decline' }],
        ]),
      );
      expect(resultText(response)).toBe('Transferred 12.50 to bob');
    });

    it('as an input-response key with an invalid response: -32602 naming the key', async () => {
      const response = await retryTransfer(ownKeys([[name, { action: 'maybe' }]]));
      expect(response.body.error).toEqual({
        code: -32602,
        message: `Invalid params: input response "${name}" is not a valid result`,
        data: { key: name },
      });
    });

    it('as a field of an accepted elicitation: the DTO answer still validates', async () => {
      const response = await retryTransfer({
        approval: {
          action: 'accept',
          content: ownKeys<unknown>([
            ['approve', true],
            [name, 'x'],
          ]),
        },
      });
      expect(resultText(response)).toBe('Transferred 12.50 to bob');
    });

    it('as an Mcp-Param-* header suffix nothing declares: ignored', async () => {
      const response = await round(
        'tools/call',
        { name: 'test_custom_header', arguments: { region: 'eu-west' } },
        { headers: { 'Mcp-Param-Region': 'eu-west', [`Mcp-Param-${name}`]: 'x' } },
      );
      expect(resultText(response)).toBe('Region: eu-west');
    });

    it('as an argument key of a DTO tool: stripped, top level or nested', async () => {
      const ticket = await round(
        'tools/call',
        {
          name: 'create_ticket',
          arguments: ownKeys<unknown>([
            ...Object.entries(TICKET),
            [name, 'x'],
            ['extra', ownKeys([[name, 'x']])],
          ]),
        },
        { headers: ALICE },
      );
      expect(JSON.parse(resultText(ticket))).toMatchObject(TICKET);
      const note = await round('tools/call', {
        name: 'loose_note',
        arguments: { title: 'hello', meta: ownKeys([[name, 1]]) },
      });
      expect(resultText(note)).toBe('note: hello');
      const deeper = await round('tools/call', {
        name: 'loose_note',
        arguments: { title: 'hello', meta: { list: [ownKeys([[name, { [name]: 1 }]])] } },
      });
      expect(resultText(deeper)).toBe('note: hello');
    });

    it('as an argument key of a raw-schema tool: validated as an own property only', async () => {
      const strict = await round('tools/call', {
        name: 'json_schema_2020_12_tool',
        arguments: ownKeys([
          ['name', 'Ada'],
          ['email', 'ada@example.com'],
          [name, 'x'],
        ]),
      });
      if (reachesArguments(name)) {
        expect(strict.body.error).toMatchObject({
          code: -32602,
          message: `Invalid params: must NOT have additional properties: '${name}'`,
        });
      } else {
        expect(resultText(strict)).toBe('Received: {"name":"Ada","email":"ada@example.com"}');
      }

      const absent = await round('tools/call', { name: 'proto_schema', arguments: {} });
      expect(resultText(absent)).toBe('keys: ');

      // The one property mirrored in a header needs it whenever the argument is sent.
      const header = (value: string) =>
        name === 'hasOwnProperty' ? { 'Mcp-Param-HasOwnProperty': value } : undefined;
      const present = await round(
        'tools/call',
        { name: 'proto_schema', arguments: ownKeys([[name, 'x']]) },
        { headers: header('x') },
      );
      if (name === '__proto__') {
        expect(present.body.error).toMatchObject({
          code: -32602,
          message: "Invalid params: must NOT have additional properties: '__proto__'",
        });
        return;
      }
      expect(resultText(present)).toBe(reachesArguments(name) ? `keys: ${name}` : 'keys: ');

      const wrongType = await round(
        'tools/call',
        { name: 'proto_schema', arguments: ownKeys([[name, 5]]) },
        { headers: header('5') },
      );
      if (reachesArguments(name)) {
        expect(wrongType.body.error).toMatchObject({
          code: -32602,
          message: `Invalid params: /${name} must be string`,
        });
      } else {
        expect(resultText(wrongType)).toBe('keys: ');
      }
    });

    it('as the bearer user: no roles (create_ticket hidden: unknown) and its own state partition', async () => {
      const refused = await round(
        'tools/call',
        { name: 'create_ticket', arguments: TICKET },
        { headers: { Authorization: `Bearer ${name}` } },
      );
      expect(refused.body.error).toEqual({
        code: -32602,
        message: 'Unknown tool: create_ticket',
        data: { name: 'create_ticket' },
      });
      const flow = await round(
        'tools/call',
        { name: 'transfer_funds', arguments: TRANSFER },
        { headers: { Authorization: `Bearer ${name}` }, capabilities: FORM },
      );
      expect(flow.body.result?.resultType).toBe('input_required');
      const stolen = await round(
        'tools/call',
        { name: 'transfer_funds', arguments: TRANSFER },
        {
          headers: { Authorization: `Bearer ${name}` },
          capabilities: FORM,
          requestState: await transferState(),
          inputResponses: { approval: APPROVE },
        },
      );
      expect(stolen.body.error).toEqual({ code: -32602, message: 'Invalid request state' });
    });

    it('as a JSON-RPC method: -32601', async () => {
      const response = await round(name, {});
      expect(response.body.error).toMatchObject({ code: -32601 });
    });
  });

  describe("the sample's Authorization header, read once for roles and state", () => {
    const aliceSpellings = [
      'Bearer alice',
      'bearer alice',
      'BEARER alice',
      'Bearer  alice',
      'Bearer\talice',
      'Bearer \t alice ',
    ];
    const notBearer = ['Basic alice', 'Bearer', 'Bearer alice bob', 'alice', 'Bearer al ice'];

    function createTicket(authorization: string): Promise<RawRoundResponse> {
      return round(
        'tools/call',
        { name: 'create_ticket', arguments: TICKET },
        { headers: { Authorization: authorization } },
      );
    }

    async function continueTransfer(authorization: string, given?: string) {
      const state = given ?? (await transferState());
      return round(
        'tools/call',
        { name: 'transfer_funds', arguments: TRANSFER },
        {
          headers: { Authorization: authorization },
          capabilities: FORM,
          requestState: state,
          inputResponses: { approval: APPROVE },
        },
      );
    }

    it.each(aliceSpellings)('%j is alice for the role guard and for state', async (header) => {
      expect(JSON.parse(resultText(await createTicket(header)))).toMatchObject(TICKET);
      expect(resultText(await continueTransfer(header))).toBe('Transferred 12.50 to bob');
    });

    it.each(['Bearer bob', 'bearer  bob'])(
      '%j is bob, a viewer: create_ticket hidden',
      async (header) => {
        expect((await createTicket(header)).body.error).toEqual({
          code: -32602,
          message: 'Unknown tool: create_ticket',
          data: { name: 'create_ticket' },
        });
      },
    );

    it.each(notBearer)('%j is nobody: challenged, the anonymous partition', async (header) => {
      const ticket = await createTicket(header);
      expect(ticket.status).toBe(401);
      expect(ticket.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
      expect((await continueTransfer(header)).body.error).toEqual({
        code: -32602,
        message: 'Invalid request state',
      });
      const anonymous = await round(
        'tools/call',
        { name: 'transfer_funds', arguments: TRANSFER },
        { capabilities: FORM },
      );
      const state = anonymous.body.result?.requestState as string;
      expect(resultText(await continueTransfer(header, state))).toBe('Transferred 12.50 to bob');
    });
  });

  describe('mixed with ordinary names (fast-check)', () => {
    const key = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 12 }));
    const record = <T>(value: fc.Arbitrary<T>) =>
      fc
        .uniqueArray(fc.tuple(key, value), { selector: ([name]) => name, maxLength: 6 })
        .map((entries) => ownKeys(entries));
    const RUNS = { numRuns: 25 };

    it('input-response keys never make a retry fail as a bug', async () => {
      await fc.assert(
        fc.asyncProperty(record(fc.constant<unknown>(APPROVE)), async (responses) => {
          const response = await retryTransfer(responses);
          const answered = Object.hasOwn(responses, 'approval');
          if (answered) expect(resultText(response)).toBe('Transferred 12.50 to bob');
          else expect(response.body.result?.resultType).toBe('input_required');
        }),
        RUNS,
      );
    });

    it('argument keys at any depth never make a DTO tool fail as a bug', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.letrec<{ tree: unknown }>((tie) => ({
            tree: fc.oneof(
              { depthSize: 'small' },
              fc.string({ maxLength: 4 }),
              fc.integer(),
              fc.array(tie('tree'), { maxLength: 3 }),
              record(tie('tree')),
            ),
          })).tree,
          async (meta) => {
            const response = await round('tools/call', {
              name: 'loose_note',
              arguments: { title: 'hello', meta },
            });
            const isObject = meta !== null && typeof meta === 'object' && !Array.isArray(meta);
            if (isObject) expect(resultText(response)).toBe('note: hello');
            else expect(response.body.error?.code).toBe(-32602);
          },
        ),
        RUNS,
      );
    });

    it('completion argument and context names never make a completion fail as a bug', async () => {
      await fc.assert(
        fc.asyncProperty(key, record(fc.string({ maxLength: 4 })), async (argument, context) => {
          const response = await round('completion/complete', {
            ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
            argument: { name: argument, value: '' },
            context: { arguments: context },
          });
          const expected = argument === 'arg1' ? ['test', 'testValue1', 'testing', 'example'] : [];
          expect(completionValues(response)).toEqual(expected);
        }),
        RUNS,
      );
    });
  });
});
