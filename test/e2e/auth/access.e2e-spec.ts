import { Payments, accessApp, payRound } from './access.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { expectInputRequired, expectNoSideEffects } from '../../utils/expect-rpc';
import { rawRound, rawToolCall, type RawRoundResponse } from '../../utils/mcp';

/*
 * Status codes clients act on, scopes per operation checked every round, and lists that show
 * what a caller may call: on both adapters, with the fast path and through the SDK (the two must
 * answer byte for byte alike).
 */

const FORM = { elicitation: { form: {} } };
const ANONYMOUS = {};
const ALICE = { 'x-user': 'alice' };
const PAYER = { 'x-user': 'bob', 'x-scope': 'payments:write' };
const ADMIN = { 'x-user': 'root', 'x-roles': 'admin', 'x-scope': 'payments:write' };

const LISTS = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
} as const;

/** The names (or URIs, URI templates) a list answered. */
async function listed(server: TestServer, method: keyof typeof LISTS, headers = {}) {
  const response = await rawRound(server.url, method, {}, { headers });
  expect(response.status).toBe(200);
  const entries = response.body.result?.[LISTS[method]] as Record<string, string>[];
  return entries.map((entry) => entry.uri ?? entry.uriTemplate ?? entry.name);
}

/** Status, the headers a client acts on, and the body. */
function wire(response: RawRoundResponse) {
  return {
    status: response.status,
    challenge: response.headers['www-authenticate'],
    body: response.body,
  };
}

describe.each(ADAPTERS)('access over %s', (adapter) => {
  const servers: Record<'fast' | 'sdk' | 'public', TestServer> = {} as never;

  beforeAll(async () => {
    servers.fast = await startTestServer(adapter, { imports: [accessApp(true)] });
    servers.sdk = await startTestServer(adapter, { imports: [accessApp(false)] });
    servers.public = await startTestServer(adapter, {
      imports: [accessApp(true, { lists: 'public' })],
    });
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server?.close();
  });

  describe.each(['fast', 'sdk'] as const)('on the %s path', (path) => {
    const server = () => servers[path];

    it('lists for an anonymous caller only what it may call', async () => {
      expect(await listed(server(), 'tools/list', ANONYMOUS)).toEqual([
        'public_echo',
        'forbids_itself',
      ]);
      expect(await listed(server(), 'prompts/list', ANONYMOUS)).toEqual(['public_prompt']);
      expect(await listed(server(), 'resources/list', ANONYMOUS)).toEqual(['public://readme']);
      expect(await listed(server(), 'resources/templates/list', ANONYMOUS)).toEqual([]);
    });

    it('lists for alice, signed in without the role or the scope, the same', async () => {
      expect(await listed(server(), 'tools/list', ALICE)).toEqual([
        'public_echo',
        'forbids_itself',
      ]);
    });

    it('lists for a caller with the scope the scoped tool, and for an admin everything its guards allow', async () => {
      expect(await listed(server(), 'tools/list', PAYER)).toEqual([
        'public_echo',
        'pay',
        'forbids_itself',
      ]);
      expect(await listed(server(), 'tools/list', ADMIN)).toEqual([
        'public_echo',
        'admin_report',
        'pay',
        'forbids_itself',
      ]);
      expect(await listed(server(), 'prompts/list', ADMIN)).toEqual([
        'admin_prompt',
        'public_prompt',
      ]);
      expect(await listed(server(), 'resources/list', ADMIN)).toEqual([
        'admin://config',
        'public://readme',
      ]);
      expect(await listed(server(), 'resources/templates/list', ADMIN)).toEqual([
        'admin://users/{id}',
      ]);
    });

    it('answers a signed-in caller calling a hidden operation as for an unknown one', async () => {
      const hidden = await rawToolCall(server().url, 'admin_report', {}, { headers: ALICE });
      const unknown = await rawToolCall(server().url, 'no_such_tool', {}, { headers: ALICE });
      expect(hidden.status).toBe(200);
      expect(hidden.body.error).toEqual({
        code: -32602,
        message: 'Unknown tool: admin_report',
        data: { name: 'admin_report' },
      });
      expect(unknown.body.error?.code).toBe(-32602);
      const prompt = await rawRound(
        server().url,
        'prompts/get',
        { name: 'admin_prompt' },
        {
          headers: ALICE,
        },
      );
      expect(prompt.body.error?.message).toBe('Unknown prompt: admin_prompt');
      const resource = await rawRound(
        server().url,
        'resources/read',
        { uri: 'admin://users/7' },
        {
          headers: ALICE,
        },
      );
      expect(resource.body.error).toMatchObject({ code: -32602, message: 'Resource not found' });
    });

    it('keeps -32003 for a method that throws ForbiddenException itself', async () => {
      const response = await rawToolCall(server().url, 'forbids_itself', {}, { headers: ALICE });
      expect(response.body.error).toEqual({ code: -32003, message: 'Forbidden' });
    });

    it("answers a guard's UnauthorizedException with HTTP 401 and a Bearer challenge, never as unknown", async () => {
      const response = await rawToolCall(server().url, 'admin_report', {});
      expect(wire(response)).toEqual({
        status: 401,
        challenge: 'Bearer',
        body: {
          jsonrpc: '2.0',
          id: response.body.id,
          error: { code: -32001, message: 'Unauthorized' },
        },
      });
    });

    it('answers a bad token with 401 invalid_token, on calls and lists alike', async () => {
      const headers = { Authorization: 'Bearer bad' };
      for (const response of [
        await rawToolCall(server().url, 'public_echo', {}, { headers }),
        await rawRound(server().url, 'tools/list', {}, { headers }),
      ]) {
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe(
          'Bearer error="invalid_token", error_description="The access token was not accepted"',
        );
        expect(response.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
      }
    });

    it('challenges an anonymous call of a scoped tool with 401 naming the scope', async () => {
      const response = await rawToolCall(server().url, 'pay', {}, { capabilities: FORM });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer scope="payments:write"');
    });

    it('answers a token without the scope with 403 insufficient_scope (step-up)', async () => {
      const response = await payRound(server().url, ALICE);
      expect(wire(response)).toEqual({
        status: 403,
        challenge:
          'Bearer error="insufficient_scope", error_description="The operation needs more scopes", scope="payments:write"',
        body: {
          jsonrpc: '2.0',
          id: response.body.id,
          error: {
            code: -32003,
            message: 'Forbidden: insufficient scope',
            data: { requiredScopes: ['payments:write'] },
          },
        },
      });
    });

    it('checks the scope again on every round: a flow whose token lost it ends with the step-up, and nothing is paid', async () => {
      const payments = server().app.get(Payments);
      const first = await payRound(server().url, PAYER);
      expectInputRequired(first, { confirm: { method: 'elicitation/create' } });
      const retry = await expectNoSideEffects(
        () => payments.made.length,
        () => payRound(server().url, { 'x-user': 'bob', 'x-scope': 'profile' }, first),
      );
      expect(retry.status).toBe(403);
      expect(retry.headers['www-authenticate']).toContain('error="insufficient_scope"');
      const done = await payRound(server().url, PAYER, first);
      expect(done.body.result).toMatchObject({ content: [{ type: 'text', text: 'paid' }] });
    });
  });

  it('answers alike on the fast path and through the SDK', async () => {
    const cases: [string, Record<string, unknown>, Record<string, string>][] = [
      ['admin_report', {}, ANONYMOUS],
      ['admin_report', {}, ALICE],
      ['pay', {}, ALICE],
      ['pay', {}, ANONYMOUS],
      ['public_echo', {}, { Authorization: 'Bearer bad' }],
    ];
    for (const [name, args, headers] of cases) {
      const [fast, sdk] = await Promise.all(
        [servers.fast, servers.sdk].map((server) =>
          rawToolCall(server.url, name, args, { id: 7, capabilities: FORM, headers }),
        ),
      );
      expect({ name, ...wire(fast), text: fast.text }).toEqual({
        name,
        ...wire(sdk),
        text: sdk.text,
      });
    }
  });

  it('with public lists, lists everything and keeps -32003 for a refused call', async () => {
    expect(await listed(servers.public, 'tools/list', ANONYMOUS)).toEqual([
      'public_echo',
      'admin_report',
      'pay',
      'broken_guard',
      'forbids_itself',
    ]);
    const refused = await rawToolCall(servers.public.url, 'admin_report', {}, { headers: ALICE });
    expect(refused.body.error).toEqual({ code: -32003, message: 'Forbidden' });
  });
});

/** POSTs one 2025-era message (`session`: its `Mcp-Session-Id`); the status, the session id, the text. */
async function post2025(server: TestServer, body: object, headers = {}, session?: string) {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session !== undefined && {
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    session: response.headers.get('mcp-session-id') ?? undefined,
    challenge: response.headers.get('www-authenticate') ?? undefined,
    text: await response.text(),
  };
}

/** A 2025-era request in a session of its own, opened by the same caller. */
async function legacy(server: TestServer, method: string, params: object, headers = {}) {
  const opened = await post2025(
    server,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'access-2025', version: '1.0.0' },
      },
    },
    headers,
  );
  expect(opened.session).toBeDefined();
  return post2025(server, { jsonrpc: '2.0', id: 1, method, params }, headers, opened.session);
}

describe('2025-era clients', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('express', { imports: [accessApp(true)] });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('get lists filtered per caller too', async () => {
    const anonymous = await legacy(server, 'tools/list', {});
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toContain('"public_echo"');
    expect(anonymous.text).not.toContain('"admin_report"');
    const admin = await legacy(server, 'tools/list', {}, ADMIN);
    expect(admin.text).toContain('"admin_report"');
  });

  it("get a guard's refusal as the HTTP status, with its challenge (nothing was streamed before the guard ran)", async () => {
    const refused = await legacy(server, 'tools/call', { name: 'admin_report', arguments: {} });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^Bearer/);
    expect(refused.text).toContain('"code":-32001');
  });
});
