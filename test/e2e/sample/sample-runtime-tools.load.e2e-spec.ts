import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS } from '../../utils/bootstrap';
import { freshId, rawRound, rawToolCall, resultText, stateOf } from '../../utils/mcp';
import { SampleFleet } from '../../utils/sample-fleet';
import { type SampleProcess } from '../../utils/sample-process';
import { openSession, sessionPost } from '../../utils/session-clients';
import { SseReader, type OpenStream } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { until } from '../../utils/wait';

const ADMIN_TOKEN = 'runtime-admin-token';
const ALICE = { Authorization: 'Bearer alice' };
const BOB = { Authorization: 'Bearer bob' };
const FORM = { elicitation: { form: {} } };
const YES = { confirm: { action: 'accept', content: { confirm: true } } };
/** What the issue asks of a fleet: a change is served everywhere within 2 s. */
const FLEET_DEADLINE_MS = 2_000;

const SCHEMA = {
  type: 'object',
  properties: { who: { type: 'string', maxLength: 20 } },
  required: ['who'],
};
const DEFINITION = {
  name: 'greet_tenant',
  description: 'Greets someone, once you say yes',
  inputSchema: SCHEMA,
  reply: 'Hello {{who}}!',
  visibleTo: ['alice'],
  confirm: true,
};

function admin(instance: SampleProcess, method: 'POST' | 'DELETE', path: string, body?: unknown) {
  return fetch(new URL(path, instance.url), {
    method,
    headers: {
      Authorization: `Bearer ${ADMIN_TOKEN}`,
      // Fastify refuses a JSON content type without a body.
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function toolNames(instance: SampleProcess, headers: Record<string, string>) {
  const list = await rawRound(instance.url, 'tools/list', {}, { headers });
  return (list.body.result?.tools as { name: string; inputSchema: unknown }[]) ?? [];
}

/** What bob sees of `greet_tenant` on an instance, in both eras, byte for byte. */
async function bobsView(instance: SampleProcess, session: string) {
  const call = { name: 'greet_tenant', arguments: { who: 'bob' } };
  return [
    (await rawRound(instance.url, 'tools/list', {}, { id: 1, headers: BOB })).text,
    (
      await rawToolCall(instance.url, 'greet_tenant', call.arguments, {
        id: 2,
        headers: BOB,
        capabilities: FORM,
      })
    ).text,
    (await sessionPost(instance.url, { id: 3, method: 'tools/list', params: {} }, session, BOB))
      .text,
    (await sessionPost(instance.url, { id: 4, method: 'tools/call', params: call }, session, BOB))
      .text,
  ];
}

describe.each(ADAPTERS)(
  'tools defined at run time on a fleet of two sample instances over %s',
  (adapter) => {
    const keyring = newKeyring(['k1']);
    const samples = new SampleFleet();
    let fleet: SampleProcess[] = [];
    const streams: OpenStream[] = [];
    const clients: Client[] = [];
    /** bob's 2025-era session on each instance. */
    const sessions: string[] = [];
    /** What bob saw before the tool existed: an unknown tool, on each instance. */
    const unknown: string[][] = [];

    beforeAll(async () => {
      await samples.open();
      const env = { MCP_KEYRING: keyring.json, ...samples.onRedis, MCP_ADMIN_TOKEN: ADMIN_TOKEN };
      fleet = await Promise.all([samples.start(adapter, env), samples.start(adapter, env)]);
      for (const instance of fleet) {
        const session = await openSession(instance.url, BOB);
        sessions.push(session);
        unknown.push(await bobsView(instance, session));
      }
    }, 60_000);

    afterAll(async () => {
      for (const stream of streams.splice(0)) stream.close();
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      await samples.close();
    });

    /** A listen stream (2026) and a 2025-era session of alice on `instance`, counting list changes. */
    async function listeners(instance: SampleProcess) {
      const id = freshId();
      const stream = await openListenStream(
        instance.url,
        { toolsListChanged: true },
        { id, headers: ALICE },
      );
      streams.push(stream);
      const frames = new SseReader(stream.body);
      await frames.next();
      const session = { changes: 0 };
      const client = new Client({ name: 'e2e-2025', version: '1' });
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        session.changes++;
      });
      await client.connect(
        new StreamableHTTPClientTransport(instance.url, { requestInit: { headers: ALICE } }),
      );
      clients.push(client);
      // The session's GET stream opens after initialize: a listed tool proves it is served.
      await client.listTools();
      await until(() => client.transport !== undefined, 'the session');
      return { frames, session };
    }

    it('serves a tool POSTed to one instance on both within 2 s, to alice only: bob gets an unknown tool, byte for byte, in both eras; listen streams and sessions hear of it', async () => {
      const heard = await Promise.all(fleet.map(listeners));
      // Let each 2025-era client's GET stream settle before the change it should hear.
      await new Promise((done) => setTimeout(done, 300));
      const created = await admin(fleet[0], 'POST', '/admin/tools', DEFINITION);
      expect(created.status).toBe(201);
      const posted = Date.now();
      for (const instance of fleet)
        await until(
          async () =>
            (await toolNames(instance, ALICE)).some((tool) => tool.name === 'greet_tenant'),
          {
            what: 'greet_tenant listed for alice',
            timeoutMs: FLEET_DEADLINE_MS - (Date.now() - posted),
          },
        );
      for (const [index, instance] of fleet.entries()) {
        expect((await toolNames(instance, BOB)).map((tool) => tool.name)).not.toContain(
          'greet_tenant',
        );
        expect(await bobsView(instance, sessions[index])).toEqual(unknown[index]);
        const first = await rawToolCall(
          instance.url,
          'greet_tenant',
          { who: 'ada' },
          { headers: ALICE, capabilities: FORM },
        );
        const done = await rawToolCall(
          instance.url,
          'greet_tenant',
          { who: 'ada' },
          {
            headers: ALICE,
            capabilities: FORM,
            inputResponses: YES,
            requestState: stateOf(first),
          },
        );
        expect(resultText(done)).toBe('Hello ada!');
      }
      for (const { frames, session } of heard) {
        expect(await frames.next(FLEET_DEADLINE_MS)).toMatchObject({
          method: 'notifications/tools/list_changed',
        });
        await until(() => session.changes > 0, {
          what: 'the 2025 session hearing the change',
          timeoutMs: FLEET_DEADLINE_MS,
        });
      }
    });

    it('refuses at round 2 a confirm flow begun before the tool was registered again with another schema; the same definition keeps it valid', async () => {
      const begin = async () =>
        stateOf(
          await rawToolCall(
            fleet[0].url,
            'greet_tenant',
            { who: 'ada' },
            { headers: ALICE, capabilities: FORM },
          ),
        );
      const round2 = (state: string) =>
        rawToolCall(
          fleet[0].url,
          'greet_tenant',
          { who: 'ada' },
          {
            headers: ALICE,
            capabilities: FORM,
            inputResponses: YES,
            requestState: state,
          },
        );
      const { frames } = await listeners(fleet[0]);
      // The same definition again, through the other instance: the flow carries on.
      const kept = await begin();
      expect((await admin(fleet[1], 'POST', '/admin/tools', DEFINITION)).status).toBe(201);
      expect(await frames.next(FLEET_DEADLINE_MS)).toMatchObject({
        method: 'notifications/tools/list_changed',
      });
      expect(resultText(await round2(kept))).toBe('Hello ada!');
      // Another schema: refused before the handler runs.
      const refused = await begin();
      const wider = { ...SCHEMA, properties: { who: { type: 'string', maxLength: 40 } } };
      expect(
        (await admin(fleet[1], 'POST', '/admin/tools', { ...DEFINITION, inputSchema: wider }))
          .status,
      ).toBe(201);
      await until(
        async () =>
          JSON.stringify(
            (await toolNames(fleet[0], ALICE)).find((tool) => tool.name === 'greet_tenant')
              ?.inputSchema,
          ) === JSON.stringify(wider),
        { what: 'the new schema on the first instance', timeoutMs: FLEET_DEADLINE_MS },
      );
      expect((await round2(refused)).body.error).toEqual({
        code: -32602,
        message: 'Invalid request state',
      });
    });

    it('removes it everywhere within 2 s: unlisted, and a call answers as an unknown tool', async () => {
      const removed = await admin(fleet[1], 'DELETE', '/admin/tools/greet_tenant');
      expect(removed.status).toBe(204);
      const deleted = Date.now();
      for (const instance of fleet)
        await until(
          async () =>
            !(await toolNames(instance, ALICE)).some((tool) => tool.name === 'greet_tenant'),
          {
            what: 'greet_tenant gone',
            timeoutMs: FLEET_DEADLINE_MS - (Date.now() - deleted),
          },
        );
      for (const [index, instance] of fleet.entries()) {
        const call = await rawToolCall(
          instance.url,
          'greet_tenant',
          { who: 'ada' },
          { id: 2, headers: ALICE, capabilities: FORM },
        );
        expect(call.body.error).toEqual({
          code: -32602,
          message: 'Unknown tool: greet_tenant',
          data: { name: 'greet_tenant' },
        });
        expect(await bobsView(instance, sessions[index])).toEqual(unknown[index]);
      }
      expect((await admin(fleet[0], 'DELETE', '/admin/tools/greet_tenant')).status).toBe(404);
    });

    it('refuses a definition the module would refuse, and one that takes a tool of the app, keeping nothing', async () => {
      const bad = await admin(fleet[0], 'POST', '/admin/tools', {
        ...DEFINITION,
        inputSchema: { type: 'string' },
      });
      expect(bad.status).toBe(400);
      const taken = await admin(fleet[0], 'POST', '/admin/tools', {
        ...DEFINITION,
        name: 'transfer_funds',
      });
      expect(taken.status).toBe(409);
      const unauthenticated = await fetch(new URL('/admin/tools', fleet[0].url), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(DEFINITION),
      });
      expect(unauthenticated.status).toBe(401);
      for (const instance of fleet)
        expect((await toolNames(instance, ALICE)).map((tool) => tool.name)).not.toContain(
          'greet_tenant',
        );
    });
  },
);
