import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ensureSampleBuilt } from '../../utils/sample-process';
import { PROTOCOL_VERSION, rpcBody } from '../../utils/mcp';
import { until } from '../../utils/wait';
import { TRANSFER } from '../../utils/sample-calls';

const ROOT = resolve(__dirname, '../../..');
const STDIO_MAIN = join(ROOT, 'dist-sample/sample-app/src/stdio.js');
const CLIENT_INFO = { name: 'nestjs-mcp-stdio-e2e', version: '1.0.0' };
const FORM = { elicitation: { form: {} } };
const APPROVE = { action: 'accept' as const, content: { approve: true } };

/** The environment the client starts the sample with: the caller, and no colours in its log. */
function serverEnv(user: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && key !== 'MCP_STDIO_USER') env[key] = value;
  return { ...env, NO_COLOR: '1', ...(user !== undefined && { MCP_STDIO_USER: user }) };
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
}

/** The sample over stdio driven by hand: every stdout line as written, and its stderr. */
class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  stderr = '';
  private partial = '';
  readonly exited: Promise<number | null>;

  /** `viaNpm`: started as a user starts it from an npm script, `npm run -s start:stdio`. */
  constructor(user: string | undefined, viaNpm = false) {
    this.child = viaNpm
      ? spawn('npm', ['run', '-s', 'start:stdio'], { cwd: ROOT, env: serverEnv(user) })
      : spawn(process.execPath, [STDIO_MAIN], { cwd: ROOT, env: serverEnv(user) });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      const text = this.partial + chunk;
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      this.lines.push(...parts);
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
  }

  send(message: Record<string, unknown> | string): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  request(id: number, method: string, params: Record<string, unknown> = {}): void {
    this.send(
      rpcBody(method, params, id, FORM, { 'io.modelcontextprotocol/clientInfo': CLIENT_INFO }),
    );
  }

  /** The line answering request `id`, as written. */
  async answer(id: number | null, timeoutMs = 20_000): Promise<string> {
    return until(
      () => this.lines.find((line) => (JSON.parse(line) as { id?: unknown }).id === id),
      { what: `the answer to request ${id}`, timeoutMs },
    );
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** Makes `client`'s user approve every form; the forms' messages, in the order asked. */
function approvesEveryForm(client: Client): string[] {
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', (request) => {
    asked.push((request.params as { message: string }).message);
    return APPROVE;
  });
  return asked;
}

describe('the sample over stdio (node dist-sample/sample-app/src/stdio.js)', () => {
  const raws: RawStdio[] = [];

  beforeAll(async () => {
    await ensureSampleBuilt();
  }, 120_000);

  afterAll(async () => {
    for (const raw of raws.splice(0)) await raw.stop();
  });

  /** How a client starts the sample's stdio server for `alice`. */
  const aliceServer = () => ({
    command: process.execPath,
    args: [STDIO_MAIN],
    cwd: ROOT,
    env: serverEnv('alice'),
    stderr: 'pipe' as const,
  });

  /**
   * Any era's client: the sample's tools listed, the approved transfer_funds (asked once, over its
   * mechanism), a resource.
   */
  async function expectListsApprovesAndReads(
    client: {
      listTools(): Promise<{ tools: { name: string }[] }>;
      callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
      readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
    },
    asked: string[],
  ): Promise<void> {
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['transfer_funds', 'create_ticket']));
    expect(textOf(await client.callTool({ name: 'transfer_funds', arguments: TRANSFER }))).toBe(
      'Transferred 12.50 to bob',
    );
    expect(asked).toEqual(['Transfer 12.50 to bob?']);
    const read = await client.readResource({ uri: 'test://static-text' });
    expect(read.contents[0]).toMatchObject({ uri: 'test://static-text' });
  }

  function raw(user: string | undefined, viaNpm = false): RawStdio {
    const process = new RawStdio(user, viaNpm);
    raws.push(process);
    return process;
  }

  it('serves the official client in its 2026-07-28 mode: list, call, a transfer_funds approval (input required), a resource', async () => {
    const client = new Client(CLIENT_INFO, {
      versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
      capabilities: FORM,
      inputRequired: { autoFulfill: true },
    });
    const asked = approvesEveryForm(client);
    const transport = new StdioClientTransport(aliceServer());
    await client.connect(transport);
    try {
      expect(textOf(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toBe(
        'This is a simple text response for testing.',
      );
      await expectListsApprovesAndReads(client, asked);
    } finally {
      await client.close();
    }
  });

  it('serves the official client in its default (2025-era) mode: the approval is an elicitation request over the pipe', async () => {
    const client = new Client(CLIENT_INFO, { capabilities: FORM });
    const asked = approvesEveryForm(client);
    await client.connect(new StdioClientTransport(aliceServer()));
    try {
      expect(client.getServerVersion()?.name).toBe('nestjs-mcp-sample');
      await expectListsApprovesAndReads(client, asked);
    } finally {
      await client.close();
    }
  });

  it('serves the v1 SDK client (a 2025-era session): list, call, the approval, a resource', async () => {
    const asked: string[] = [];
    const client = new V1Client(CLIENT_INFO, { capabilities: FORM });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return APPROVE;
    });
    await client.connect(new V1StdioClientTransport(aliceServer()));
    try {
      await expectListsApprovesAndReads(client, asked);
    } finally {
      await client.close();
    }
  });

  it('hides the agent`s tool from MCP_STDIO_USER=bob: unlisted, and a call answers as an unknown tool, in both eras', async () => {
    const bob = raw('bob');
    bob.request(1, 'tools/list');
    const list = JSON.parse(await bob.answer(1)) as { result: { tools: { name: string }[] } };
    expect(list.result.tools.map((tool) => tool.name)).not.toContain('create_ticket');
    bob.request(2, 'tools/call', {
      name: 'create_ticket',
      arguments: { title: 'x', priority: 'low' },
    });
    bob.request(3, 'tools/call', { name: 'no_such_tool', arguments: {} });
    const hidden = await bob.answer(2);
    const unknown = await bob.answer(3);
    expect(hidden).toBe(
      unknown.replace(/"id":3/, '"id":2').replaceAll('no_such_tool', 'create_ticket'),
    );
    expect(JSON.parse(hidden)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message: 'Unknown tool: create_ticket',
        data: { name: 'create_ticket' },
      },
    });
    const session = new V1Client(CLIENT_INFO, { capabilities: FORM });
    await session.connect(
      new V1StdioClientTransport({
        command: process.execPath,
        args: [STDIO_MAIN],
        cwd: ROOT,
        env: serverEnv('bob'),
        stderr: 'pipe',
      }),
    );
    try {
      expect((await session.listTools()).tools.map((tool) => tool.name)).not.toContain(
        'create_ticket',
      );
      const error = await session
        .callTool({ name: 'create_ticket', arguments: { title: 'x', priority: 'low' } })
        .then(
          () => undefined,
          (reason: { code?: number; message?: string }) => reason,
        );
      expect(error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool: create_ticket'),
      });
    } finally {
      await session.close();
    }
  });

  it('writes nothing but JSON-RPC to stdout, its log on stderr, started by `npm run -s start:stdio`; refuses a 20 MB line and serves the next; exits 0 on EOF after the call in flight', async () => {
    const alice = raw('alice', true);
    const huge = `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"pad":"${'x'.repeat(20 * 1024 * 1024)}"}}`;
    alice.send(huge);
    alice.request(6, 'tools/list');
    expect(JSON.parse(await alice.answer(null))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Request body too large',
        data: { maxBytes: 4 * 1024 * 1024 },
      },
    });
    expect(JSON.parse(await alice.answer(6))).toMatchObject({
      result: { tools: expect.any(Array) },
    });
    alice.request(7, 'tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 1, label: 'eof' },
    });
    // The call is in flight when stdin ends: its answer still comes, then the process ends.
    await until(() => alice.stderr.includes('Serving MCP at'), 'the app started');
    alice.child.stdin.end();
    expect(await alice.exited).toBe(0);
    expect(JSON.parse(await alice.answer(7, 1))).toMatchObject({
      result: { content: [{ type: 'text', text: 'Computed eof after 1 s' }] },
    });
    expect(alice.lines.length).toBeGreaterThanOrEqual(3);
    for (const line of alice.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(alice.stderr).toContain('Serving MCP at');
  });

  it('on SIGTERM reads no more, answers the call in flight and exits 0', async () => {
    const alice = raw('alice');
    alice.request(1, 'tools/list');
    await alice.answer(1);
    alice.request(2, 'tools/call', {
      name: 'slow_compute',
      arguments: { seconds: 1, label: 'term' },
    });
    await until(() => alice.stderr.includes('Serving MCP at'), 'the app started');
    alice.child.kill('SIGTERM');
    expect(await alice.exited).toBe(0);
    expect(JSON.parse(await alice.answer(2, 1))).toMatchObject({
      result: { content: [{ type: 'text', text: 'Computed term after 1 s' }] },
    });
  });
});
