import { ValidationPipe } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsString, MaxLength } from 'class-validator';
import { type McpOperationContext } from '../../../src/index';
import { McpRuntimeOperations } from '../../../src/entry/runtime';
import { newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import {
  freshId,
  rawRound,
  rawToolCall,
  resultText,
  stateOf,
  type RawRoundOptions,
} from '../../utils/mcp';
import { openSession, sessionPost } from '../../utils/session-clients';
import { SseReader, type OpenStream } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { until } from '../../utils/wait';
import {
  CONFIRM_OPTIONS,
  DecoratedOrders,
  DecoratedWrapped,
  ORDER_SCHEMA,
  RUNTIME_CONFIRM,
  TagInterceptor,
  ToolErrorFilter,
  WRAPPED_OPTIONS,
  confirmOrder,
  runtimeApp,
  userOf,
  wrapped,
} from './runtime-operations.fixtures';

const ALICE = { 'x-user': 'alice' };
const BOB = { 'x-user': 'bob' };
const FORM = { elicitation: { form: {} } };

/** A call of confirm_order for tea by the caller `headers` name, with a form; `options` add to it. */
const orderTea = (url: URL, headers: Record<string, string>, options: RawRoundOptions = {}) =>
  rawToolCall(url, 'confirm_order', { item: 'tea' }, { headers, capabilities: FORM, ...options });
const ACCEPT = { confirm: { action: 'accept', content: { approve: true } } };

/** The body of an answer with its one random member (a sealed state) named, not spelled. */
function comparable(text: string): string {
  return text.replace(/"requestState":"[^"]+"/g, '"requestState":"<sealed>"');
}

class NoteDto {
  @IsString()
  @MaxLength(10)
  text!: string;
}

describe.each(ADAPTERS)('operations registered at run time, over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  const shared = { keyring: { active: keyring.active, keys: { ...keyring.keys } } };
  let decorated: TestServer;
  let registered: TestServer;
  let runtime: McpRuntimeOperations;
  const servers: TestServer[] = [];

  async function start(
    providers: Parameters<typeof runtimeApp>[0],
    register: Parameters<typeof runtimeApp>[1],
    options: Parameters<typeof runtimeApp>[2] = {},
  ): Promise<TestServer> {
    const server = await startTestServer(adapter, {
      imports: [runtimeApp(providers, register, { ...shared, ...options })],
      providers: [
        { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
      ],
    });
    servers.push(server);
    return server;
  }

  beforeAll(async () => {
    decorated = await start([DecoratedOrders], async () => undefined);
    registered = await start([], async (registry) => {
      runtime = registry;
      await registry.registerTool(RUNTIME_CONFIRM, confirmOrder as never);
    });
  });

  afterAll(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  describe('the same pipeline, the same bytes', () => {
    it('lists the run-time tool exactly as the decorated one', async () => {
      const [a, b] = await Promise.all(
        [decorated, registered].map((server) =>
          rawRound(server.url, 'tools/list', {}, { id: 7, headers: ALICE }),
        ),
      );
      expect(b.status).toBe(a.status);
      expect(b.text).toBe(a.text);
      expect(b.body.result?.tools).toEqual([expect.objectContaining({ name: 'confirm_order' })]);
    });

    it.each([
      ['a first round (input required)', {}, undefined],
      ['bad arguments', { arguments: { item: 'x'.repeat(30) } }, undefined],
      ['a capability missing', {}, {}],
    ])('answers %s byte for byte as the decorated tool', async (_, extra, capabilities) => {
      const answers = await Promise.all(
        [decorated, registered].map((server) =>
          rawRound(
            server.url,
            'tools/call',
            { name: 'confirm_order', arguments: { item: 'tea' }, ...extra },
            { id: 8, headers: ALICE, capabilities: capabilities ?? FORM },
          ),
        ),
      );
      expect(comparable(answers[1].text)).toBe(comparable(answers[0].text));
      expect(answers[1].status).toBe(answers[0].status);
    });

    it('completes the flow on round 2 under the same guards and sealed state', async () => {
      const first = await orderTea(registered.url, ALICE);
      const second = await orderTea(registered.url, ALICE, {
        inputResponses: ACCEPT,
        requestState: stateOf(first),
      });
      expect(resultText(second)).toBe('Ordered tea');
    });

    it('resolves a guard class no module provides through DI, so it is never skipped', async () => {
      const [a, b] = await Promise.all(
        [decorated, registered].map((server) => orderTea(server.url, BOB, { id: 9 })),
      );
      expect(b.body.error).toMatchObject({ code: -32602, message: 'Unknown tool: confirm_order' });
      expect(b.text).toBe(a.text);
    });

    it('validates a DTO input through the app`s global ValidationPipe, as a decorated one', async () => {
      await runtime.registerTool(
        { name: 'note', description: 'Takes a note', input: NoteDto },
        ((args: NoteDto) => `${args instanceof NoteDto ? 'dto' : 'plain'}:${args.text}`) as never,
      );
      expect(resultText(await rawToolCall(registered.url, 'note', { text: 'hello' }))).toBe(
        'dto:hello',
      );
      const refused = await rawToolCall(registered.url, 'note', { text: 'x'.repeat(11) });
      expect(refused.body.error).toMatchObject({ code: -32602 });
      runtime.unregisterTool('note');
    });
  });

  describe.each([true, false])(
    'visibleTo: hidden is unknown, byte for byte (fast path %s)',
    (fastPath) => {
      let tenants: TestServer;
      let registry: McpRuntimeOperations;
      const forAlice = {
        ...CONFIRM_OPTIONS,
        visibleTo: (caller: McpOperationContext) => userOf(caller) === 'alice',
      };

      beforeAll(async () => {
        tenants = await start(
          [],
          async (runtimeOperations) => {
            registry = runtimeOperations;
            await runtimeOperations.registerTool(forAlice, confirmOrder as never);
          },
          { http: { fastPath } },
        );
      });

      /** What `ask` answers while the tool is registered for alice, and once nobody serves it. */
      async function hiddenAndUnknown<T>(ask: () => Promise<T>): Promise<[T, T]> {
        const hidden = await ask();
        registry.unregisterTool('confirm_order');
        try {
          return [hidden, await ask()];
        } finally {
          await registry.registerTool(forAlice, confirmOrder as never);
        }
      }

      it('lists it to alice only', async () => {
        const list = (headers: Record<string, string>) =>
          rawRound(tenants.url, 'tools/list', {}, { id: 10, headers });
        expect((await list(ALICE)).body.result?.tools).toEqual([
          expect.objectContaining({ name: 'confirm_order' }),
        ]);
        const [hidden, unknown] = await hiddenAndUnknown(() => list(BOB));
        expect(hidden.text).toBe(unknown.text);
      });

      it('answers bob`s call as for a tool nobody serves', async () => {
        const call = () => orderTea(tenants.url, BOB, { id: 11 });
        const [hidden, unknown] = await hiddenAndUnknown(call);
        expect(hidden.status).toBe(unknown.status);
        expect(hidden.text).toBe(unknown.text);
        expect(unknown.body.error).toMatchObject({
          code: -32602,
          message: 'Unknown tool: confirm_order',
        });
        expect((await orderTea(tenants.url, ALICE)).body.result?.resultType).toBe('input_required');
      });

      it('hides it from a 2025-era session`s list and call, byte for byte', async () => {
        const bob = await openSession(tenants.url, BOB);
        const ask = async () => [
          await sessionPost(tenants.url, { id: 2, method: 'tools/list', params: {} }, bob, BOB),
          await sessionPost(
            tenants.url,
            {
              id: 3,
              method: 'tools/call',
              params: { name: 'confirm_order', arguments: { item: 'tea' } },
            },
            bob,
            BOB,
          ),
        ];
        const [hidden, unknown] = await hiddenAndUnknown(ask);
        expect(hidden.map((answer) => answer.text)).toEqual(unknown.map((answer) => answer.text));
        expect(unknown[1].messages[0].error).toMatchObject({ code: -32602 });
        const client = new Client({ name: 'e2e-2025', version: '1' });
        await client.connect(
          new StreamableHTTPClientTransport(tenants.url, { requestInit: { headers: ALICE } }),
        );
        try {
          expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
            'confirm_order',
          ]);
        } finally {
          await client.close();
        }
      });

      it('hides it even where lists are not filtered per caller (auth.lists: public)', async () => {
        const open = await start(
          [],
          (runtimeOperations) => runtimeOperations.registerTool(forAlice, confirmOrder as never),
          { auth: { lists: 'public' }, http: { fastPath } },
        );
        const list = await rawRound(open.url, 'tools/list', {}, { headers: BOB });
        expect(list.body.result?.tools).toEqual([]);
        const hidden = await orderTea(open.url, BOB, { id: 12 });
        expect(hidden.body.error).toEqual({
          code: -32602,
          message: 'Unknown tool: confirm_order',
          data: { name: 'confirm_order' },
        });
      });
    },
  );

  describe('the rest of the pipeline: interceptors, filters, replay, tasks', () => {
    let withDecorated: TestServer;
    let withRuntime: TestServer;

    beforeAll(async () => {
      withDecorated = await start([DecoratedWrapped], async () => undefined);
      withRuntime = await start([], (registry) =>
        registry.registerTool(
          { ...WRAPPED_OPTIONS, interceptors: [TagInterceptor], filters: [new ToolErrorFilter()] },
          wrapped,
        ),
      );
    });

    it.each<[string, { text: string; fail?: boolean }]>([
      ['a result an interceptor changes', { text: 'hi' }],
      ['a failure an exception filter answers', { text: 'hi', fail: true }],
    ])('answers %s byte for byte as the decorated tool', async (_, args) => {
      const [a, b] = await Promise.all(
        [withDecorated, withRuntime].map((server) =>
          rawToolCall(server.url, 'wrapped', args, { id: 13 }),
        ),
      );
      expect(b.text).toBe(a.text);
      expect(b.body.result?.content).toEqual([
        { type: 'text', text: args.fail ? 'filtered failure' : 'hi (tagged)' },
      ]);
    });

    it('serves a replay-style handler: it awaits its answer across rounds', async () => {
      await runtime.registerTool(
        {
          name: 'ask_name',
          description: 'Asks a name',
          replay: true,
          mayRequestInput: [{ type: 'elicitation.form' }],
        },
        async (_args, ctx) => {
          const answer = await ctx.elicit({
            message: 'Name?',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string' } },
              required: ['name'],
            },
          });
          return answer.action === 'accept' ? `Hello ${String(answer.content?.name)}` : 'No';
        },
      );
      const first = await rawToolCall(registered.url, 'ask_name', {}, { capabilities: FORM });
      const key = Object.keys(first.body.result?.inputRequests ?? {})[0] as string;
      const second = await rawToolCall(
        registered.url,
        'ask_name',
        {},
        {
          capabilities: FORM,
          requestState: stateOf(first),
          inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } },
        },
      );
      expect(resultText(second)).toBe('Hello Ada');
      runtime.unregisterTool('ask_name');
    });

    it('runs as a task for a client that declares the tasks extension', async () => {
      await runtime.registerTool(
        { name: 'as_task', description: 'Runs as a task', taskSupport: 'optional' },
        () => 'done as a task',
      );
      const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
      const created = await rawToolCall(registered.url, 'as_task', {}, { capabilities: tasks });
      expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });
      const taskId = created.body.result?.taskId as string;
      const completed = await until(
        async () =>
          (await rawRound(registered.url, 'tasks/get', { taskId }, { capabilities: tasks })).body
            .result,
        { done: (task) => task?.status === 'completed', what: 'the task to complete' },
      );
      expect(completed?.result).toMatchObject({
        content: [{ type: 'text', text: 'done as a task' }],
      });
      runtime.unregisterTool('as_task');
    });
  });

  describe('prompts and resources', () => {
    let kinds: TestServer;
    let registry: McpRuntimeOperations;
    const forAlice = (caller: McpOperationContext) => userOf(caller) === 'alice';

    /** The prompt and the resource only alice sees (registered at start, again after a test hid them). */
    async function registerAlicesBrief(operations: McpRuntimeOperations): Promise<void> {
      await operations.registerPrompt(
        {
          name: 'brief',
          description: 'A brief about a topic',
          arguments: [{ name: 'topic', required: true }],
          complete: { topic: (value) => ['tea', 'coffee'].filter((t) => t.startsWith(value)) },
          visibleTo: forAlice,
        },
        (args: { topic: string }) => `Write about ${args.topic}`,
      );
      await operations.registerResource(
        { uri: 'notes://today', name: 'today', mimeType: 'text/plain', visibleTo: forAlice },
        () => 'nothing planned',
      );
    }

    beforeAll(async () => {
      kinds = await start([], async (runtimeOperations) => {
        registry = runtimeOperations;
        await registerAlicesBrief(runtimeOperations);
        await runtimeOperations.registerResource(
          { uriTemplate: 'notes://day/{day}', name: 'day' },
          (args: { day: string }) => `notes of ${args.day}`,
        );
      });
    });

    /** What `ask` answers while the operations are registered, and once nobody serves them. */
    async function hiddenAndUnknown(ask: () => Promise<string[]>): Promise<[string[], string[]]> {
      const hidden = await ask();
      registry.unregisterPrompt('brief');
      registry.unregisterResource('notes://today');
      try {
        return [hidden, await ask()];
      } finally {
        await registerAlicesBrief(registry);
      }
    }

    it('serves a prompt, its completion, a resource and a template to alice', async () => {
      const get = await rawRound(
        kinds.url,
        'prompts/get',
        { name: 'brief', arguments: { topic: 'tea' } },
        { headers: ALICE },
      );
      expect(get.body.result?.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Write about tea' } },
      ]);
      const complete = await rawRound(
        kinds.url,
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'brief' }, argument: { name: 'topic', value: 'c' } },
        { headers: ALICE },
      );
      expect(complete.body.result?.completion).toMatchObject({ values: ['coffee'] });
      const read = await rawRound(
        kinds.url,
        'resources/read',
        { uri: 'notes://today' },
        { headers: ALICE },
      );
      expect(read.body.result?.contents).toEqual([
        { uri: 'notes://today', mimeType: 'text/plain', text: 'nothing planned' },
      ]);
      const day = await rawRound(kinds.url, 'resources/read', { uri: 'notes://day/monday' });
      expect(day.body.result?.contents).toMatchObject([{ text: 'notes of monday' }]);
      const templates = await rawRound(kinds.url, 'resources/templates/list', {});
      expect(templates.body.result?.resourceTemplates).toEqual([
        { uriTemplate: 'notes://day/{day}', name: 'day' },
      ]);
    });

    it('answers bob as if nobody served the hidden prompt and resource: lists, get, completion, read', async () => {
      const ask = async () => [
        (await rawRound(kinds.url, 'prompts/list', {}, { id: 1, headers: BOB })).text,
        (
          await rawRound(
            kinds.url,
            'prompts/get',
            { name: 'brief', arguments: { topic: 'tea' } },
            { id: 2, headers: BOB },
          )
        ).text,
        (
          await rawRound(
            kinds.url,
            'completion/complete',
            { ref: { type: 'ref/prompt', name: 'brief' }, argument: { name: 'topic', value: 'c' } },
            { id: 3, headers: BOB },
          )
        ).text,
        (await rawRound(kinds.url, 'resources/list', {}, { id: 4, headers: BOB })).text,
        (
          await rawRound(
            kinds.url,
            'resources/read',
            { uri: 'notes://today' },
            { id: 5, headers: BOB },
          )
        ).text,
      ];
      const [hidden, unknown] = await hiddenAndUnknown(ask);
      expect(hidden).toEqual(unknown);
      expect(JSON.parse(unknown[1] as string).error).toMatchObject({ code: -32602 });
    });
  });

  describe('versions in the seal', () => {
    it('refuses at round 2 a flow whose tool was registered again with another schema; the same definition keeps it', async () => {
      const opened = async () => stateOf(await orderTea(registered.url, ALICE));
      const round2 = (state: string) =>
        orderTea(registered.url, ALICE, { inputResponses: ACCEPT, requestState: state });
      let ran = 0;
      const counted = ((args: { item: string }, ctx: never) => {
        if (
          (ctx as { inputResponses: { find(k: string): unknown } }).inputResponses.find('confirm')
        )
          ran++;
        return confirmOrder(args, ctx);
      }) as never;
      // The same definition again: a flow begun before carries on.
      const before = await opened();
      await runtime.registerTool(RUNTIME_CONFIRM, counted);
      expect(resultText(await round2(before))).toBe('Ordered tea');
      expect(ran).toBe(1);
      // Another schema: refused before the handler runs.
      const started = await opened();
      await runtime.registerTool(
        {
          ...RUNTIME_CONFIRM,
          inputSchema: { ...ORDER_SCHEMA, properties: { item: { type: 'string', maxLength: 40 } } },
        },
        counted,
      );
      const refused = await round2(started);
      expect(refused.body.error).toEqual({ code: -32602, message: 'Invalid request state' });
      expect(ran).toBe(1);
      await runtime.registerTool(RUNTIME_CONFIRM, confirmOrder as never);
    });

    it('across a deploy: a decorated tool defined the same keeps flows, defined otherwise refuses them', async () => {
      const state = stateOf(await orderTea(decorated.url, ALICE));
      const continued = (server: TestServer) =>
        orderTea(server.url, ALICE, { inputResponses: ACCEPT, requestState: state });
      // The run-time twin is defined the same (its code differs): the "deployed" instance goes on.
      expect(resultText(await continued(registered))).toBe('Ordered tea');
      const changed = await start([], (registry) =>
        registry.registerTool(
          {
            ...RUNTIME_CONFIRM,
            mayRequestInput: [{ type: 'elicitation.form', requirement: 'required' }],
          },
          confirmOrder as never,
        ),
      );
      expect((await continued(changed)).body.error).toEqual({
        code: -32602,
        message: 'Invalid request state',
      });
    });
  });

  describe('lists that change', () => {
    let lists: TestServer;
    let registry: McpRuntimeOperations;
    const streams: OpenStream[] = [];

    beforeAll(async () => {
      lists = await start(
        [],
        async (runtimeOperations) => {
          registry = runtimeOperations;
          for (const name of ['b', 'd', 'f', 'h'])
            await runtimeOperations.registerTool(
              { name, description: `Tool ${name}`, inputSchema: ORDER_SCHEMA },
              () => name,
            );
        },
        { lists: { pageSize: 2 } },
      );
    });

    afterAll(() => {
      for (const stream of streams.splice(0)) stream.close();
    });

    const page = async (cursor?: string) => {
      const answer = await rawRound(
        lists.url,
        'tools/list',
        cursor === undefined ? {} : { cursor },
      );
      return {
        names: ((answer.body.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name),
        next: answer.body.result?.nextCursor as string | undefined,
        error: answer.body.error,
      };
    };

    it('a cursor from before a change continues after its entry, or is refused: never a wrong page', async () => {
      const first = await page();
      expect(first.names).toEqual(['b', 'd']);
      // Registered before and after the cursor's entry: the page after `d` shows what follows it now.
      await registry.registerTool(
        { name: 'a', description: 'A', inputSchema: ORDER_SCHEMA },
        () => 'a',
      );
      await registry.registerTool(
        { name: 'e', description: 'E', inputSchema: ORDER_SCHEMA },
        () => 'e',
      );
      expect((await page(first.next)).names).toEqual(['e', 'f']);
      // The cursor's entry removed: refused, as a cursor of nothing.
      registry.unregisterTool('d');
      expect((await page(first.next)).error).toEqual({ code: -32602, message: 'Invalid cursor' });
      // Registered again: it is where its name puts it, and the cursor continues after it.
      await registry.registerTool(
        { name: 'd', description: 'D', inputSchema: ORDER_SCHEMA },
        () => 'd',
      );
      expect((await page(first.next)).names).toEqual(['e', 'f']);
      expect((await page()).names).toEqual(['a', 'b']);
      registry.unregisterTool('a');
      registry.unregisterTool('e');
    });

    it('tells listen streams that the list changed, once per registration burst', async () => {
      const id = freshId();
      const stream = await openListenStream(lists.url, { toolsListChanged: true }, { id });
      streams.push(stream);
      const frames = new SseReader(stream.body);
      await frames.next();
      for (const name of ['x1', 'x2', 'x3'])
        await registry.registerTool(
          { name, description: name, inputSchema: ORDER_SCHEMA },
          () => name,
        );
      expect(await frames.next()).toMatchObject({
        method: 'notifications/tools/list_changed',
      });
      registry.unregisterTool('x1');
      expect(await frames.next()).toMatchObject({ method: 'notifications/tools/list_changed' });
      await expect(frames.next(300)).rejects.toThrow(/no SSE message/);
      registry.unregisterTool('x2');
      registry.unregisterTool('x3');
    });

    it('tells a 2025-era session`s GET stream', async () => {
      const client = new Client({ name: 'e2e-2025', version: '1' });
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed++;
      });
      await client.connect(new StreamableHTTPClientTransport(lists.url));
      try {
        // The GET stream opens after initialize; a change before it is not what this measures.
        await new Promise((done) => setTimeout(done, 200));
        await registry.registerTool(
          { name: 'y', description: 'Y', inputSchema: ORDER_SCHEMA },
          () => 'y',
        );
        for (let waited = 0; changed === 0 && waited < 5000; waited += 50)
          await new Promise((done) => setTimeout(done, 50));
        expect(changed).toBe(1);
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('y');
        registry.unregisterTool('y');
      } finally {
        await client.close();
      }
    });

    it('refuses to replace a decorated operation, naming both', async () => {
      const app = await start([DecoratedOrders], async () => undefined);
      await expect(
        app.app.get(McpRuntimeOperations).registerTool(RUNTIME_CONFIRM, confirmOrder as never),
      ).rejects.toThrow(
        'Duplicate MCP tool "confirm_order": declared by DecoratedOrders.confirm() and McpRuntimeOperations.registerTool()',
      );
    });
  });
});
