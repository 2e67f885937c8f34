// What a 2025-era client of the user app must see: sessions owned by the user the app's guard
// authenticates, every ask on every official client, 2025 semantics whatever extensions a client
// declares (scripts/user-app-test.mjs registers these for every app it starts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { connectV1, connectV2Session, recordingFetch, SimulatedUser, textOf } from './clients.mjs';
import { HANG_GUARD, TOOLS } from './expectations.mjs';
import { openSession, sessionDelete, sessionGet, sessionPost } from './wire.mjs';

/** How many distinct users open a session each: more than the 100 sessions a caller may hold. */
const USERS = 105;
const CONCURRENCY = 5;
/** What the MCP Inspector 2.12 declares at `initialize` (its CLI, default settings). */
const INSPECTOR_CAPABILITIES = {
  roots: { listChanged: true },
  extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/skills': {} },
};
const SESSION_CLIENTS = [
  ['the v1 SDK client', connectV1],
  ['the v2 client in its default mode', connectV2Session],
];

/** Runs `use(client)` in a session `connect` opens for alice, answering as `user`; ends it. */
async function inSession(connect, app, user, use, options) {
  const session = await connect(app.url, app.alice, user, options);
  try {
    return await use(session.client);
  } finally {
    await session.close();
  }
}

/** What the server asked on a call's stream and what the client posted back, for a failure. */
async function askedAndAnswered(recorder) {
  await recorder.settled();
  const asked = recorder.exchanges
    .flatMap((each) => each.answers)
    .find((message) => message.method === 'elicitation/create');
  const answered = recorder.exchanges.find(
    (each) => asked !== undefined && each.sent.id === asked.id && each.sent.method === undefined,
  )?.sent;
  const refusal = answered?.error;
  const said = refusal
    ? `error ${refusal.code} ${String(refusal.message).replace(/\s+/g, ' ').slice(0, 160)}…` +
      (String(refusal.message).includes('elicitationId') ? ' (naming elicitationId)' : '')
    : JSON.stringify(answered?.result);
  return (
    `the server asked elicitation/create ${JSON.stringify(asked?.params)}` +
    `${asked?.params?.elicitationId === undefined ? ', without an elicitationId,' : ''} ` +
    `and the client answered ${said}`
  );
}

export function sessionEraTests(app) {
  it(
    "2025-11-25: a session belongs to the user who opened it: another user's token with its id is answered 404 on POST, GET and DELETE, as an unknown session, and the owner carries on",
    HANG_GUARD,
    async () => {
      const opened = await openSession(app.url, app.alice);
      assert.equal(opened.status, 200, opened.text);
      const id = opened.sessionId;
      const list = { id: 7, method: 'tools/list' };
      const unknown = await sessionPost(
        app.url,
        randomBytes(24).toString('base64url'),
        app.bob,
        list,
      );
      const bobPost = await sessionPost(app.url, id, app.bob, list);
      const bobGet = await sessionGet(app.url, id, app.bob);
      const bobDelete = await sessionDelete(app.url, id, app.bob);
      const alicePost = await sessionPost(app.url, id, app.alice, list);
      await sessionDelete(app.url, id, app.alice);
      assert.deepEqual(
        {
          bobPost: bobPost.status,
          bobGet: bobGet.status,
          bobDelete: bobDelete.status,
          alicePostAfterwards: alicePost.status,
        },
        { bobPost: 404, bobGet: 404, bobDelete: 404, alicePostAfterwards: 200 },
        `bob's POST with alice's session id was answered: ${bobPost.text.slice(0, 300)}`,
      );
      assert.equal(bobPost.text, unknown.text, 'answered exactly as an unknown session');
      assert.deepEqual(
        alicePost.messages[0]?.result?.tools?.map((tool) => tool.name),
        TOOLS,
      );
    },
  );

  it(
    `2025-11-25: ${USERS} users each open a session, and none is refused with 429`,
    HANG_GUARD,
    async () => {
      const opened = [];
      for (let first = 1; first <= USERS; first += CONCURRENCY) {
        const batch = [];
        for (let n = first; n < first + CONCURRENCY && n <= USERS; n++) batch.push(n);
        opened.push(
          ...(await Promise.all(
            batch.map(async (n) => {
              const token = await app.tokens.sign(`u-${n}`, `user${n}`);
              return { n, token, ...(await openSession(app.url, token)) };
            }),
          )),
        );
      }
      await Promise.all(
        opened
          .filter((each) => each.sessionId !== undefined)
          .map((each) => sessionDelete(app.url, each.sessionId, each.token)),
      );
      const refused = opened.filter((each) => each.status !== 200);
      assert.equal(
        refused.length,
        0,
        `${refused.length} of ${USERS} users could not open a session; the first, user ${refused[0]?.n}, got HTTP ${refused[0]?.status}: ${refused[0]?.text}`,
      );
    },
  );

  for (const [name, connect] of SESSION_CLIENTS) {
    it(
      `2025-11-25: a form ask and a sealed four-round flow complete through ${name}`,
      HANG_GUARD,
      async () => {
        const user = new SimulatedUser(app.origin);
        const texts = await inSession(connect, app, user, async (client) => [
          textOf(await client.callTool({ name: 'delete_file', arguments: { path: 'b.txt' } })),
          textOf(await client.callTool({ name: 'plan_trip', arguments: { destination: 'Rome' } })),
        ]);
        assert.deepEqual(texts, [
          'Deleted b.txt',
          'Booked business to Rome on 2026-09-01 (rounds as alice, alice, alice, alice)',
        ]);
      },
    );

    it(
      `2025-11-25: a connect-style sign-in URL completes through ${name}`,
      HANG_GUARD,
      async () => {
        const user = new SimulatedUser(app.origin);
        const recorder = recordingFetch();
        const text = await inSession(
          connect,
          app,
          user,
          async (client) =>
            textOf(await client.callTool({ name: 'connect_github', arguments: {} })),
          { fetch: recorder.fetch },
        ).catch(async (error) => {
          throw new Error(`${error.message}; ${await askedAndAnswered(recorder)}`, {
            cause: error,
          });
        });
        assert.equal(text, 'GitHub connected for alice');
        const [asked] = user.asked;
        assert.equal(asked.mode, 'url');
        assert.equal(
          typeof asked.elicitationId,
          'string',
          'elicitationId, which 2025-11-25 requires',
        );
      },
    );
  }

  it(
    '2025-11-25: a session that declares the tasks extension, as the MCP Inspector does, gets a plain result for a plain call of a tool that may run as a task',
    HANG_GUARD,
    async () => {
      const recorder = recordingFetch();
      const result = await inSession(
        connectV2Session,
        app,
        new SimulatedUser(app.origin),
        (client) => client.callTool({ name: 'export_report', arguments: { month: '2026-08' } }),
        { capabilities: INSPECTOR_CAPABILITIES, fetch: recorder.fetch },
      );
      await recorder.settled();
      const call = recorder.exchanges.find((each) => each.sent.method === 'tools/call');
      const answer = call?.answers.find((message) => message.id === call.sent.id);
      assert.deepEqual(answer?.result, {
        content: [{ type: 'text', text: 'Exported the usage report of 2026-08' }],
      });
      assert.equal(textOf(result), 'Exported the usage report of 2026-08');
    },
  );
}
