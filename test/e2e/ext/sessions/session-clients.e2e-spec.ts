import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { McpModule } from '../../../../src/index';
import { BearerPartitionResolver } from '../../../../sample-app/src/flows/bearer-partition.resolver';
import { FlowsModule } from '../../../../sample-app/src/flows/flows.module';
import { startSampleApp } from '../../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';
import {
  connectModern,
  connectV1,
  connectV2Legacy,
  initializeRaw,
  openSession,
  SampleUser,
  SESSION_PROTOCOL_VERSION,
  sessionPost,
  textOf,
} from '../../../utils/session-clients';
import { sleep } from '../../../utils/wait';

const ALICE = { Authorization: 'Bearer alice' };
const BOB = { Authorization: 'Bearer bob' };
const SESSION_NOT_FOUND = { code: -32001, message: 'Session not found' };

/** The sample's three input flows, the same for every client. */
const FLOWS = [
  {
    tool: 'transfer_funds',
    args: { amount: '12.50', to: 'bob' },
    text: 'Transferred 12.50 to bob',
    asked: ['Transfer 12.50 to bob?'],
  },
  {
    tool: 'collect_rounds',
    args: { rounds: 3 },
    text: 'v1,v2,v3',
    asked: ['Value 1 of 3?', 'Value 2 of 3?', 'Value 3 of 3?'],
  },
  {
    tool: 'onboard_user',
    args: {},
    text: 'Welcome, Ada! You are on the team plan.',
    asked: ['What should we call you?', 'Which plan would you like, Ada?'],
  },
];

// The Inspector CLI looks for its package.json relative to the working directory: run it from its own.
const INSPECTOR_BUILD = dirname(
  require.resolve('@modelcontextprotocol/inspector-cli/build/index.js'),
);
const run = promisify(execFile);

/** `mcp-inspector --cli <url> --transport http --method tools/call …`: its output, and whether it failed. */
async function inspectorCall(
  url: URL,
  tool: string,
  args: string[],
): Promise<{ ok: boolean; output: string }> {
  const argv = [join(INSPECTOR_BUILD, 'index.js'), url.href, '--transport', 'http'];
  argv.push('--header', 'Authorization: Bearer alice', '--method', 'tools/call');
  argv.push('--tool-name', tool, ...args.flatMap((arg) => ['--tool-arg', arg]));
  try {
    const { stdout } = await run(process.execPath, argv, { cwd: INSPECTOR_BUILD, timeout: 30_000 });
    return { ok: true, output: stdout };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** Anything that calls a tool the way both SDK generations spell it. */
interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

describe.each(ADAPTERS)('both protocol eras on one endpoint over %s', (adapter) => {
  let server: TestServer;
  /** Small bounds: two sessions per caller, two rounds per call, a short wait for answers. */
  let bounded: TestServer;
  /** Sessions idle for a second are gone. */
  let shortIdle: TestServer;

  const boundedApp = (sessions: Record<string, number>) =>
    startTestServer(adapter, {
      imports: [
        McpModule.forRoot({
          sessions,
          identity: { partitionResolver: new BearerPartitionResolver() },
        }),
        FlowsModule,
      ],
    });

  beforeAll(async () => {
    server = await startSampleApp(adapter, {});
    bounded = await boundedApp({
      maxSessionsPerCaller: 2,
      maxInputRounds: 2,
      answerTimeoutMs: 300,
    });
    shortIdle = await boundedApp({ idleTimeoutMs: 1_000 });
  });

  afterAll(async () => {
    for (const each of [server, bounded, shortIdle]) await each?.close();
  });

  async function runFlows(client: ToolCaller, user: SampleUser): Promise<string[]> {
    const texts: string[] = [];
    for (const flow of FLOWS) {
      texts.push(textOf(await client.callTool({ name: flow.tool, arguments: flow.args })));
    }
    expect(user.asked).toEqual(FLOWS.flatMap((flow) => flow.asked));
    return texts;
  }

  it('the v2 client in its default mode, the v1 SDK client and a 2026-07-28 client complete transfer_funds, collect_rounds and onboard_user on the same server', async () => {
    const users = { v2: new SampleUser(), v1: new SampleUser(), modern: new SampleUser() };
    const v2 = await connectV2Legacy(server.url, users.v2, ALICE);
    const v1 = await connectV1(server.url, users.v1, ALICE);
    const modern = await connectModern(server.url, users.modern, ALICE);
    try {
      expect(v2.getNegotiatedProtocolVersion()).toBe(SESSION_PROTOCOL_VERSION);
      expect(v1.getServerCapabilities()).toBeDefined();
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const expected = FLOWS.map((flow) => flow.text);
      expect(await runFlows(v2, users.v2)).toEqual(expected);
      expect(await runFlows(v1, users.v1)).toEqual(expected);
      expect(await runFlows(modern, users.modern)).toEqual(expected);
    } finally {
      await Promise.all([v2.close(), v1.close(), modern.close()]);
    }
  });

  it("runs the app's guards and validation for a 2025-era call as for a 2026-07-28 one", async () => {
    const ticket = { title: 'Printer on fire', priority: 'high' };
    for (const connect of [connectV1, connectModern]) {
      const agent = await connect(server.url, new SampleUser(), ALICE);
      const viewer = await connect(server.url, new SampleUser(), BOB);
      try {
        const created = await agent.callTool({ name: 'create_ticket', arguments: ticket });
        expect(JSON.parse(textOf(created))).toMatchObject(ticket);
        await expect(
          agent.callTool({ name: 'create_ticket', arguments: { ...ticket, priority: 'urgent' } }),
        ).rejects.toMatchObject({ code: -32602 });
        // Lists per caller (the default): an operation the caller's guards refuse is hidden, so
        // calling it answers as an unknown tool would, in both eras.
        await expect(
          viewer.callTool({ name: 'create_ticket', arguments: ticket }),
        ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool') });
        expect((await viewer.listTools()).tools.map((tool) => tool.name)).not.toContain(
          'create_ticket',
        );
      } finally {
        await Promise.all([agent.close(), viewer.close()]);
      }
    }
  });

  it("a 2025 client's task asks for input over its session and completes (v1 SDK task API), as the same task does for a 2026-07-28 client", async () => {
    const user = new SampleUser();
    const v1 = await connectV1(server.url, user, ALICE);
    try {
      const kinds: string[] = [];
      let text: string | undefined;
      for await (const message of v1.experimental.tasks.callToolStream(
        { name: 'confirm_delete', arguments: { filename: 'a.txt' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )) {
        kinds.push(message.type);
        if (message.type === 'result') text = textOf(message.result);
        if (message.type === 'error') throw message.error;
      }
      expect(kinds[0]).toBe('taskCreated');
      expect(kinds[kinds.length - 1]).toBe('result');
      expect(text).toBe('Deleted a.txt');
      expect(user.asked).toEqual(['Delete a.txt?']);
    } finally {
      await v1.close();
    }

    // The same tool as a 2026-07-28 task (the tasks extension): the input comes back through tasks/update.
    const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };
    const created = await rawRound(
      server.url,
      'tools/call',
      { name: 'confirm_delete', arguments: { filename: 'b.txt' } },
      { capabilities, headers: ALICE },
    );
    const taskId = (created.body.result as { taskId: string }).taskId;
    expect(typeof taskId).toBe('string');
    let status = '';
    let task: Record<string, unknown> = {};
    for (let polls = 0; polls < 200 && status !== 'completed'; polls++) {
      task = (await rawRound(server.url, 'tasks/get', { taskId }, { capabilities, headers: ALICE }))
        .body.result as Record<string, unknown>;
      status = String(task.status);
      if (status === 'input_required') {
        const updated = await rawRound(
          server.url,
          'tasks/update',
          {
            taskId,
            inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
          },
          { capabilities, headers: ALICE },
        );
        expect(updated.body.error).toBeUndefined();
      } else if (status !== 'completed') await sleep(20);
    }
    expect(status).toBe('completed');
    expect(JSON.stringify(task)).toContain('Deleted b.txt');
  });

  it('serves the MCP Inspector CLI (a 2025-era client that declares no capabilities): plain tools work, an input flow gets -32021 naming what is missing', async () => {
    const greeted = await inspectorCall(server.url, 'greet', ['name=Ada']);
    expect(greeted.ok).toBe(true);
    expect(JSON.parse(greeted.output)).toEqual({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    const refused = await inspectorCall(server.url, 'transfer_funds', ['amount="1.00"', 'to=bob']);
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain(
      'MCP error -32021: Missing required client capabilities: elicitation.form',
    );
    // Two Inspector processes, each starting Node and its SDK.
  }, 30_000);

  it('answers an unknown and a deleted session with HTTP 404 and -32001 Session not found', async () => {
    const unknown = await sessionPost(
      server.url,
      { id: 7, method: 'tools/list' },
      'no-such-session',
    );
    expect({ status: unknown.status, messages: unknown.messages }).toEqual({
      status: 404,
      messages: [{ jsonrpc: '2.0', id: 7, error: SESSION_NOT_FOUND }],
    });

    const sessionId = await openSession(server.url, ALICE);
    const listed = await sessionPost(server.url, { id: 1, method: 'tools/list' }, sessionId, ALICE);
    expect(listed.status).toBe(200);
    expect(listed.sessionId).toBe(sessionId);
    // 128+ random bits: at least 22 base64url characters.
    expect(sessionId).toMatch(/^[\w-]{22,}$/);
    const gone = await request(server.origin)
      .delete(server.url.pathname)
      .set({
        ...ALICE,
        'Mcp-Session-Id': sessionId,
        'MCP-Protocol-Version': SESSION_PROTOCOL_VERSION,
      });
    expect(gone.status).toBe(200);
    const after = await sessionPost(server.url, { id: 3, method: 'tools/list' }, sessionId, ALICE);
    expect({ status: after.status, messages: after.messages }).toEqual({
      status: 404,
      messages: [{ jsonrpc: '2.0', id: 3, error: SESSION_NOT_FOUND }],
    });
  });

  it('negotiates 2025-11-25 for an initialize asking an unknown version, and answers malformed session traffic with the documented errors', async () => {
    const negotiated = await sessionPost(server.url, {
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2031-01-01',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    });
    expect(negotiated.messages[0]).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    const sessionId = await openSession(server.url, ALICE);
    const cases: [Record<string, string>, string | undefined, unknown, number, unknown][] = [
      [
        ALICE,
        undefined,
        { id: 1, method: 'tools/list' },
        400,
        { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' },
      ],
      [
        { ...ALICE, 'MCP-Protocol-Version': '2024-01-01' },
        sessionId,
        { id: 2, method: 'tools/list' },
        400,
        {
          code: -32000,
          message:
            'Bad Request: Unsupported protocol version: 2024-01-01 (supported versions: 2025-11-25, 2025-06-18)',
        },
      ],
      [
        ALICE,
        sessionId,
        { id: 3, method: 'server/discover' },
        200,
        { code: -32601, message: 'Method not found' },
      ],
    ];
    for (const [headers, id, message, status, error] of cases) {
      const answered = await sessionPost(
        server.url,
        message as Record<string, unknown>,
        id,
        headers,
      );
      expect({ status: answered.status, error: answered.messages[0]?.error }).toEqual({
        status,
        error,
      });
    }
  });

  it('answers a session presented by another caller with 404, and leaves it working for its own', async () => {
    const sessionId = await openSession(server.url, ALICE);
    const stolen = await sessionPost(server.url, { id: 1, method: 'tools/list' }, sessionId, BOB);
    expect({ status: stolen.status, messages: stolen.messages }).toEqual({
      status: 404,
      messages: [{ jsonrpc: '2.0', id: 1, error: SESSION_NOT_FOUND }],
    });
    const own = await sessionPost(server.url, { id: 2, method: 'tools/list' }, sessionId, ALICE);
    expect(own.status).toBe(200);
  });

  it('refuses a call that needs elicitation with -32021 naming it when the client did not declare it at initialize', async () => {
    const sessionId = await openSession(server.url, ALICE, {});
    const refused = await sessionPost(
      server.url,
      { id: 1, method: 'tools/call', params: { name: 'url_login', arguments: {} } },
      sessionId,
      ALICE,
    );
    expect(refused.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32021,
          message: expect.stringContaining('elicitation.url'),
          data: { requiredCapabilities: { elicitation: { url: {} } } },
        },
      },
    ]);
  });

  it('forgets a session idle for longer than sessions.idleTimeoutMs (HTTP 404)', async () => {
    const sessionId = await openSession(shortIdle.url, ALICE);
    expect(
      (await sessionPost(shortIdle.url, { id: 1, method: 'ping' }, sessionId, ALICE)).status,
    ).toBe(200);
    await sleep(1_500);
    const expired = await sessionPost(shortIdle.url, { id: 2, method: 'ping' }, sessionId, ALICE);
    expect({ status: expired.status, messages: expired.messages }).toEqual({
      status: 404,
      messages: [{ jsonrpc: '2.0', id: 2, error: SESSION_NOT_FOUND }],
    });
  });

  describe('bounds', () => {
    it('refuses a caller its third session with HTTP 429 and -32000 (sessions.maxSessionsPerCaller), not another caller', async () => {
      await openSession(bounded.url, ALICE);
      await openSession(bounded.url, ALICE);
      const third = await initializeRaw(bounded.url, ALICE);
      expect({
        status: third.status,
        retryAfter: third.headers['retry-after'],
        messages: third.messages,
        sessionId: third.sessionId,
      }).toEqual({
        status: 429,
        retryAfter: '1',
        sessionId: undefined,
        messages: [
          {
            jsonrpc: '2.0',
            id: 0,
            error: {
              code: -32000,
              message: 'Server busy: too many sessions for this caller',
              data: { maxSessionsPerCaller: 2, retryAfterMs: 1000 },
            },
          },
        ],
      });
      expect((await initializeRaw(bounded.url, BOB)).status).toBe(200);
    });

    it('ends a call still asking after sessions.maxInputRounds rounds with -32012, and lets a shorter one complete', async () => {
      const user = new SampleUser();
      const client = await connectV1(bounded.url, user, { Authorization: 'Bearer carol' });
      try {
        expect(
          textOf(await client.callTool({ name: 'collect_rounds', arguments: { rounds: 1 } })),
        ).toBe('v1');
        await expect(
          client.callTool({ name: 'collect_rounds', arguments: { rounds: 3 } }),
        ).rejects.toMatchObject({
          code: -32012,
          message: expect.stringContaining('after 2 rounds'),
        });
      } finally {
        await client.close();
      }
    });

    it('ends a call whose client never answers with -32011 after sessions.answerTimeoutMs, never a hang', async () => {
      const headers = { Authorization: 'Bearer dave' };
      const sessionId = await openSession(bounded.url, headers);
      const call = await sessionPost(
        bounded.url,
        {
          id: 5,
          method: 'tools/call',
          params: { name: 'transfer_funds', arguments: { amount: '1.00', to: 'eve' } },
        },
        sessionId,
        headers,
      );
      expect(call.messages.map((message) => message.method ?? message.id)).toEqual([
        'elicitation/create',
        5,
      ]);
      expect(call.messages[1]).toEqual({
        jsonrpc: '2.0',
        id: 5,
        error: {
          code: -32011,
          message: 'The client did not answer input request "approval" within 300 ms',
          data: { key: 'approval', timeoutMs: 300 },
        },
      });
    });
  });
});
