import { PassThrough } from 'node:stream';
import {
  Injectable,
  Module,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type INestApplicationContext,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  LosslessNumber,
  McpContext,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpTool,
  type McpModuleOptions,
} from '../../../src/index';
import { McpRuntimeOperations } from '../../../src/entry/runtime';
import { McpStdio } from '../../../src/entry/stdio';
import { until } from '../../utils/wait';
import { initializeMessage } from '../../utils/session-clients';
import { askForAmount } from '../../fixtures/amount-form';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

/** Lets through the callers whose `request.user` has the agent role; records what it saw. */
@Injectable()
class AgentGuard implements CanActivate {
  static seen: unknown[] = [];

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ user?: { roles?: string[] } }>();
    AgentGuard.seen.push(request);
    return request.user?.roles?.includes('agent') === true;
  }
}

@Injectable()
class StdioTools {
  @UseGuards(AgentGuard)
  @McpTool({ name: 'agents_only', description: 'For agents' })
  agentsOnly(): string {
    return 'agent work';
  }

  @McpTool({ name: 'exact_amount', description: 'Echoes an amount exactly' })
  @McpMayRequestInput({ type: 'elicitation.form' })
  exactAmount(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    const answer = ctx.inputResponses.find('amount');
    if (answer?.kind === 'elicitation' && answer.content?.amount instanceof LosslessNumber)
      return answer.content.amount.value;
    return askForAmount();
  }
}

/** One stdio connection to an app: lines in, lines out. */
class Connection {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly lines: string[] = [];
  served!: Promise<void>;
  private partial = '';

  constructor() {
    this.output.setEncoding('utf8');
    this.output.on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop() ?? '';
      this.lines.push(...parts);
    });
  }

  send(message: unknown): void {
    this.input.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  request(id: number | string, method: string, params: Record<string, unknown> = {}): void {
    this.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });
  }

  async answer(id: number | string | null): Promise<Record<string, unknown>> {
    const line = await until(
      () =>
        this.lines.find((text) => (JSON.parse(text) as { id?: unknown }).id === id) ?? undefined,
      { what: `the answer to ${String(id)}`, timeoutMs: 10_000 },
    );
    return JSON.parse(line) as Record<string, unknown>;
  }

  async messages(method: string): Promise<Record<string, unknown>[]> {
    return this.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((message) => message.method === method);
  }
}

describe('McpStdio.serve, in process', () => {
  const open: Connection[] = [];
  let app: INestApplicationContext;

  async function serve(
    options: Partial<McpModuleOptions>,
    stdio: Parameters<typeof McpStdio.serve>[1] = {},
  ): Promise<Connection> {
    @Module({
      imports: [McpModule.forRoot({ allowEphemeralKey: true, ...options })],
      providers: [StdioTools, AgentGuard],
    })
    class StdioApp {}
    app = await NestFactory.createApplicationContext(StdioApp, { logger: false });
    const connection = new Connection();
    connection.served = McpStdio.serve(app, {
      ...stdio,
      input: connection.input,
      output: connection.output,
    });
    open.push(connection);
    return connection;
  }

  afterEach(async () => {
    for (const connection of open.splice(0)) {
      connection.input.end();
      await connection.served;
    }
  });

  it('puts the caller on request.user for the guards; a caller without the role finds the tool unknown', async () => {
    const alice = await serve({}, { caller: { sub: 'alice', roles: ['agent'] } });
    alice.request(1, 'tools/call', { name: 'agents_only', arguments: {} });
    expect(await alice.answer(1)).toMatchObject({
      result: { content: [{ type: 'text', text: 'agent work' }] },
    });
    const seen = AgentGuard.seen.at(-1) as Record<string, unknown>;
    expect(seen).toMatchObject({
      headers: {},
      method: 'POST',
      url: '/mcp',
      transport: 'stdio',
      user: { sub: 'alice', roles: ['agent'] },
    });
    alice.input.end();
    await alice.served;
    open.splice(0);
    const bob = await serve({}, { caller: { sub: 'bob', roles: ['viewer'] } });
    bob.request(2, 'tools/list');
    expect(
      ((await bob.answer(2)).result as { tools: { name: string }[] }).tools.map((t) => t.name),
    ).toEqual(['exact_amount']);
    bob.request(3, 'tools/call', { name: 'agents_only', arguments: {} });
    expect((await bob.answer(3)).error).toEqual({
      code: -32602,
      message: 'Unknown tool: agents_only',
      data: { name: 'agents_only' },
    });
  });

  it('keeps an answer`s exact number text, as over HTTP', async () => {
    const connection = await serve({});
    connection.send(
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"exact_amount","arguments":{},' +
        '"inputResponses":{"amount":{"action":"accept","content":{"amount":3.50}}},' +
        `"_meta":${JSON.stringify(META)}}}`,
    );
    expect(await connection.answer(4)).toMatchObject({
      result: { content: [{ type: 'text', text: '3.50' }] },
    });
  });

  it('answers a bad line, or one over the body bound, with the documented error and goes on', async () => {
    const connection = await serve({ http: { maxRequestBodyBytes: 1024 } });
    connection.send('{"jsonrpc":"2.0","id":5,');
    expect(await connection.answer(null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    connection.lines.length = 0;
    connection.send(
      `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"x":"${'y'.repeat(5000)}"}}`,
    );
    expect(await connection.answer(null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body too large', data: { maxBytes: 1024 } },
    });
    connection.request(7, 'tools/call', { name: 'exact_amount', arguments: {} });
    expect(await connection.answer(7)).toMatchObject({ result: { resultType: 'input_required' } });
  });

  it('does not count a stdio caller as one without a token where the resource server requires one', async () => {
    const connection = await serve(
      { auth: { resourceServer: { issuer: 'https://issuer.invalid' } } },
      { caller: { sub: 'alice', roles: ['agent'] } },
    );
    connection.request(8, 'tools/list');
    expect(
      ((await connection.answer(8)).result as { tools: { name: string }[] }).tools.map(
        (tool) => tool.name,
      ),
    ).toEqual(['agents_only', 'exact_amount']);
  });

  it('tells a listening 2026 client and a 2025 session of a tool registered at run time', async () => {
    const modern = await serve({}, { graceMs: 600_000 });
    modern.request('listen', 'subscriptions/listen', {
      notifications: { toolsListChanged: true },
    });
    await until(() => modern.lines.length > 0, 'the acknowledgement');
    // The subscription's id is in flight until it ends: another request under it is refused.
    modern.request('listen', 'tools/list');
    await until(
      () => modern.lines.some((line) => line.includes('a request with this id is in flight')),
      'the refusal of a second request under an id in flight',
    );
    /** Registers tool `name` at run time; `peer` is told the list changed. */
    const registerAndHear = async (name: string, peer: typeof modern, what: string) => {
      await app
        .get(McpRuntimeOperations)
        .registerTool({ name, description: `Registered ${name}` }, () => name);
      await until(async () => (await peer.messages('notifications/tools/list_changed')).length, {
        what,
        timeoutMs: 5000,
      });
    };
    await registerAndHear('late', modern, 'list_changed on the listen subscription');
    // Ending the input ends the open subscription at once: were it waited for as a call in
    // flight, serve would not resolve within the test's timeout (graceMs is ten minutes here).
    modern.input.end();
    await modern.served;
    open.splice(0);
    const legacy = await serve({});
    legacy.send(initializeMessage({}, 1));
    await legacy.answer(1);
    legacy.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await registerAndHear('later', legacy, 'list_changed to the 2025 session');
    legacy.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'later', arguments: {} },
    });
    expect(await legacy.answer(2)).toMatchObject({
      result: { content: [{ type: 'text', text: 'later' }] },
    });
  });
});
