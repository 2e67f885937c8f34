import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { sampleBehindAuthorizationServer } from '../../utils/sample-oauth';
import { DpopClientCredentialsProvider, TestDpopKey, dpopHeaders } from '../../utils/dpop';
import { PROTOCOL_VERSION, rawRound, rawToolCall } from '../../utils/mcp';
import { SseReader } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { until } from '../../utils/wait';
import { TRANSFER } from '../../utils/sample-calls';

/*
 * The sample app as an OAuth protected resource that requires DPoP (SAMPLE_AUTH=oauth,
 * OAUTH_DPOP=required) in front of a real authorization server issuing DPoP-bound tokens: the
 * official client with a DPoP key completes the two-round transfer_funds pinned to 2026-07-28 and
 * in a 2025-era session; a task (export_report, asking halfway) and a listen stream complete with
 * a proof on every request; a bound token sent as a Bearer token is refused. The variables are read
 * when the sample's modules load, so they are set before it is required.
 */

const FORM = { elicitation: { form: {} } };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
const SCOPE = 'mcp:tools payments:write';

const oauth = sampleBehindAuthorizationServer();

describe.each(ADAPTERS)('the sample requiring DPoP over %s', (adapter) => {
  let server: TestServer;
  let key: TestDpopKey;
  let token: string;
  beforeAll(async () => {
    server = await oauth.sample.startSampleApp(adapter, {
      MCP_KEYRING: oauth.sample.newKeyring(['k1']).json,
      OAUTH_DPOP: 'required',
    });
    key = await TestDpopKey.create();
    token = await oauth.as.token('admin', { scope: SCOPE, resource: server.url.href, dpop: key });
  });
  afterAll(() => server?.close());

  /** The headers of a request to the endpoint, with a fresh proof for `htm`. */
  const signed = async (htm = 'POST') =>
    dpopHeaders(token, await key.proof({ htm, htu: server.url, accessToken: token }));

  it.each([
    ['pinned to 2026-07-28', true],
    ['in a 2025-era session', false],
  ])(
    'completes the two-round transfer_funds with the official client, %s',
    async (_era, pinned) => {
      const provider = new DpopClientCredentialsProvider({
        clientId: 'admin',
        clientSecret: 'admin-secret',
        scope: SCOPE,
        expectedIssuer: oauth.as.issuer,
      });
      const client = new Client(
        { name: 'sample-dpop', version: '1.0.0' },
        {
          ...(pinned && { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } }),
          capabilities: FORM,
        },
      );
      const asked: string[] = [];
      client.setRequestHandler('elicitation/create', (request) => {
        asked.push((request.params as { message: string }).message);
        return { action: 'accept', content: { approve: true } };
      });
      await client.connect(
        new StreamableHTTPClientTransport(server.url, { authProvider: provider }),
      );
      try {
        const transfer = await client.callTool({ name: 'transfer_funds', arguments: TRANSFER });
        expect(transfer.content).toEqual([{ type: 'text', text: 'Transferred 12.50 to bob' }]);
        expect(asked).toHaveLength(1);
        expect(provider.tokens()?.token_type).toBe('DPoP');
      } finally {
        await client.close();
      }
    },
  );

  it('runs a task to completion, answering its question, with a proof on every request', async () => {
    const send = async (method: string, params: Record<string, unknown>) =>
      rawRound(server.url, method, params, { capabilities: TASKS, headers: await signed() });
    const created = await send('tools/call', {
      name: 'export_report',
      arguments: { dataset: 'customers', rows: 500 },
    });
    const taskId = (created.body.result as { taskId: string }).taskId;
    expect(taskId).toEqual(expect.any(String));
    type Task = { status: string; result?: { content: { text: string }[] } };
    const watch = (status: string) =>
      until(async () => (await send('tasks/get', { taskId })).body.result as Task, {
        done: (task) => task.status === status,
        what: `task ${taskId} to be ${status}`,
        everyMs: 20,
      });
    await watch('input_required');
    await send('tasks/update', {
      taskId,
      inputResponses: { include_personal: { action: 'accept', content: { include: true } } },
    });
    const done = await watch('completed');
    expect(done.result?.content[0].text).toBe(
      'Exported 500 of 500 rows of customers to reports/customers.csv',
    );
  });

  it('opens a listen stream with a proof, and refuses one without', async () => {
    const notifications = { toolsListChanged: true };
    const refused = await openListenStream(server.url, notifications, {
      id: 51,
      headers: { Authorization: `DPoP ${token}` },
    });
    expect(refused.status).toBe(401);
    refused.close();
    const stream = await openListenStream(server.url, notifications, {
      id: 51,
      headers: await signed(),
    });
    try {
      expect(stream.status).toBe(200);
      const first = await new SseReader(stream.body).next(5_000);
      expect(first.method).toBe('notifications/subscriptions/acknowledged');
    } finally {
      stream.close();
    }
  });

  it('serves skills with a proof, like every other door', async () => {
    const SKILLS = { extensions: { 'io.modelcontextprotocol/skills': {} } };
    const listed = await rawRound(
      server.url,
      'skills/list',
      {},
      {
        capabilities: SKILLS,
        headers: await signed(),
      },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.result?.skills).toEqual(expect.arrayContaining([expect.anything()]));
    const unsigned = await rawRound(
      server.url,
      'skills/list',
      {},
      {
        capabilities: SKILLS,
        headers: { Authorization: `DPoP ${token}` },
      },
    );
    expect(unsigned.status).toBe(401);
  });

  it('refuses the bound token sent as a Bearer token', async () => {
    const stolen = await rawToolCall(
      server.url,
      'test_simple_text',
      {},
      {
        headers: { Authorization: `Bearer ${token}` },
      },
    );
    expect(stolen.status).toBe(401);
    expect(stolen.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token"/);
  });
});
