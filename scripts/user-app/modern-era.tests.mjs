// What a 2026-07-28 client of the user app must see (scripts/user-app-test.mjs registers these for
// every app it starts; `app` is filled in by its `before`).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ASKS, connectModern, recordingFetch, SimulatedUser, textOf } from './clients.mjs';
import { HANG_GUARD, TOOLS } from './expectations.mjs';
import { modernRequest } from './wire.mjs';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GREET_ADA = { name: 'greet', arguments: { name: 'Ada' } };

/** Runs `use(client)` with a 2026-07-28 client of `token`, answering as `user`; closes it. */
async function withModernClient(app, token, user, use, options) {
  const session = await connectModern(app.url, token, user, options);
  try {
    return await use(session.client);
  } finally {
    await session.close();
  }
}

export function modernEraTests(app) {
  it(
    "2026-07-28: serves the plain tool through the app's guard, middleware, ValidationPipe and ClassSerializerInterceptor",
    HANG_GUARD,
    async () => {
      const user = new SimulatedUser(app.origin);
      await withModernClient(app, app.alice, user, async (client) => {
        assert.deepEqual(
          (await client.listTools()).tools.map((tool) => tool.name),
          TOOLS,
        );
        // req.user from the guard reached the method; ClassSerializerInterceptor left out userId.
        const greeting = await client.callTool(GREET_ADA);
        assert.deepEqual(JSON.parse(textOf(greeting)), { message: 'Hello, Ada! (from alice)' });
        await assert.rejects(
          client.callTool({ name: 'greet', arguments: { name: 5 } }),
          (error) => error.code === -32602,
        );
      });
      const raw = await modernRequest(app.url, 'tools/call', GREET_ADA, { token: app.alice });
      assert.equal(raw.status, 200);
      assert.match(raw.headers.get('x-request-id') ?? '', UUID, 'the app.use() middleware ran');
    },
  );

  it(
    "2026-07-28: refuses a call without a valid token as the app's guard says (HTTP 401, a Bearer challenge, -32001), also to the official client",
    HANG_GUARD,
    async () => {
      for (const [who, token] of [
        ['no token', undefined],
        ['a token signed with another key', app.forged],
      ]) {
        const refused = await modernRequest(app.url, 'tools/call', GREET_ADA, { token });
        assert.deepEqual(
          {
            status: refused.status,
            challenge: /^Bearer\b/.test(refused.headers.get('www-authenticate') ?? ''),
            error: refused.messages[0]?.error,
          },
          { status: 401, challenge: true, error: { code: -32001, message: 'Unauthorized' } },
          `${who}: ${refused.status} ${refused.text}`,
        );
      }
      await withModernClient(app, undefined, new SimulatedUser(app.origin), (client) =>
        assert.rejects(client.callTool(GREET_ADA), (error) => error.data?.status === 401),
      );
    },
  );

  it(
    '2026-07-28: a sealed four-round flow completes, the guard admitting the user on every round',
    HANG_GUARD,
    async () => {
      const recorder = recordingFetch();
      const result = await withModernClient(
        app,
        app.alice,
        new SimulatedUser(app.origin),
        (client) => client.callTool({ name: 'plan_trip', arguments: { destination: 'Lisbon' } }),
        { fetch: recorder.fetch },
      );
      await recorder.settled();
      assert.equal(
        textOf(result),
        'Booked business to Lisbon on 2026-09-01 (rounds as alice, alice, alice, alice)',
      );
      const rounds = recorder.exchanges.filter((each) => each.sent.method === 'tools/call');
      assert.deepEqual(
        rounds.map((round) => [round.status, round.answers.at(-1)?.result?.resultType]),
        [
          [200, 'input_required'],
          [200, 'input_required'],
          [200, 'input_required'],
          [200, 'complete'],
        ],
      );
      for (const round of rounds) assert.equal(round.authorization, `Bearer ${app.alice}`);
    },
  );

  it(
    "2026-07-28: each round is authorized on its own: without a token it is 401, another user's token cannot open the sealed state, and the user carries on",
    HANG_GUARD,
    async () => {
      const call = { name: 'plan_trip', arguments: { destination: 'Oslo' } };
      const first = await modernRequest(app.url, 'tools/call', call, {
        token: app.alice,
        capabilities: ASKS,
      });
      const state = first.messages[0]?.result?.requestState;
      assert.equal(typeof state, 'string', first.text);
      const next = {
        ...call,
        inputResponses: { departure: { action: 'accept', content: { departure: '2026-10-01' } } },
        requestState: state,
      };
      const send = (token) =>
        modernRequest(app.url, 'tools/call', next, { token, capabilities: ASKS });
      const anonymous = await send(undefined);
      const bob = await send(app.bob);
      const alice = await send(app.alice);
      assert.deepEqual(
        {
          anonymous: [anonymous.status, anonymous.messages[0]?.error?.code],
          bob: bob.messages[0]?.error,
          alice: alice.messages[0]?.result?.inputRequests?.cabin?.params?.message,
        },
        {
          anonymous: [401, -32001],
          bob: { code: -32602, message: 'Invalid request state' },
          alice: 'Economy or business, leaving 2026-10-01?',
        },
      );
    },
  );

  it(
    '2026-07-28: a form ask, a connect-style sign-in URL and a tool that may run as a task complete',
    HANG_GUARD,
    async () => {
      const user = new SimulatedUser(app.origin);
      const texts = await withModernClient(app, app.alice, user, async (client) => [
        textOf(await client.callTool({ name: 'delete_file', arguments: { path: 'a.txt' } })),
        textOf(await client.callTool({ name: 'connect_github', arguments: {} })),
        textOf(await client.callTool({ name: 'export_report', arguments: { month: '2026-08' } })),
      ]);
      assert.deepEqual(texts, [
        'Deleted a.txt',
        'GitHub connected for alice',
        'Exported the usage report of 2026-08',
      ]);
      assert.deepEqual(
        user.asked.map((params) => [params.mode, params.message]),
        [
          ['form', 'Delete a.txt?'],
          ['url', 'Sign in to GitHub to connect your account'],
        ],
      );
    },
  );
}
