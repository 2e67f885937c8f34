import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawRound, rawToolCall } from '../../utils/mcp';

import {
  GROUPS,
  groupsSeenBy,
  listGuardsApp,
  USERS,
  type GroupName,
} from './list-guard-failures.fixtures';
import { modernAsker, sessionAsker, type Ask } from '../../utils/askers';

/*
 * Issue 33, item 5 (and red team IV, finding 1): in every list — tools, prompts, resources,
 * resource templates, `skills/list`, `resources/directory/read` — an entry whose guard throws (a
 * 401, a 403, a 429, a bug) or denies is left out, byte for byte as if it did not exist, and the
 * list answers; paged (pages of 2) or not, on the fast path, the SDK path and in a 2025-era
 * session, with and without a global authentication guard. "As if it did not exist" is checked
 * against a server that does not serve the hidden entries at all. Only the endpoint's own
 * authentication answers a list 401: here the app's global guard refusing `Bearer expired`.
 */

const ALL = Object.keys(GROUPS) as GroupName[];
const LISTS = [
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'skills/list',
];
/** Requests naming one group's skill: its folders, the skill itself, its manifest. */
const namedBy = (group: GroupName): [string, Record<string, unknown>][] => [
  ['resources/directory/read', { uri: `skill://${group}-skill` }],
  ['resources/directory/read', { uri: `skill://${group}-skill/refs` }],
  ['skills/get', { uri: `skill://${group}-skill/SKILL.md` }],
  ['resources/read', { uri: `skill://${group}-skill/SKILL.md` }],
];

/** One answer as the client gets it: the HTTP status and the body's bytes. */
type Answer = Awaited<ReturnType<Ask>>;

const bearer = (caller: string | undefined): Record<string, string> =>
  caller === undefined ? {} : { Authorization: `Bearer ${caller}` };

describe.each(ADAPTERS)('lists whose guards throw or deny, over %s', (adapter) => {
  describe.each([false, true])('with a global authentication guard: %s', (globalAuth) => {
    const servers = new Map<string, Promise<TestServer>>();
    afterAll(async () => {
      await Promise.all([...servers.values()].map(async (server) => (await server).close()));
    });

    /** The server of `groups` (started once). */
    function serverOf(groups: readonly GroupName[], fastPath: boolean): Promise<TestServer> {
      const key = `${groups.join(',')}/${fastPath}`;
      let server = servers.get(key);
      if (!server) {
        server = startTestServer(adapter, {
          imports: [listGuardsApp({ groups, fastPath, globalAuth })],
        });
        servers.set(key, server);
      }
      return server;
    }

    describe.each([
      ['on the 2026-07-28 fast path', 'fast'],
      ['on the 2026-07-28 SDK path', 'sdk'],
      ['in a 2025-era session', 'session'],
    ])('%s', (_label, era) => {
      const fastPath = era === 'fast';

      async function askerOf(server: TestServer, caller: string | undefined): Promise<Ask> {
        const headers = bearer(caller);
        return era === 'session'
          ? sessionAsker(server.url, headers, 1)
          : modernAsker(server.url, headers, 1);
      }

      /** Every page of `method`, following `nextCursor`. */
      async function pagesOf(ask: Ask, method: string): Promise<Answer[]> {
        const pages: Answer[] = [];
        let cursor: string | undefined;
        do {
          const page = await ask(method, cursor === undefined ? {} : { cursor });
          pages.push(page);
          cursor = (JSON.parse(page.text) as { result?: { nextCursor?: string } }).result
            ?.nextCursor;
        } while (cursor !== undefined && pages.length < 20);
        return pages;
      }

      const callers: [string, (typeof USERS)[number] | undefined][] = [
        ...USERS.map((user): [string, (typeof USERS)[number]] => [user, user]),
        ['nobody', undefined],
      ];
      it.each(callers)(
        'shows %s what its guards let through, and every other entry as one nobody serves',
        async (_name, caller) => {
          const seen = groupsSeenBy(caller);
          const asked = await askerOf(await serverOf(ALL, fastPath), caller);
          const unserved = await askerOf(await serverOf(seen, fastPath), caller);
          for (const method of LISTS) {
            const pages = await pagesOf(asked, method);
            expect(pages.map((page) => page.status)).toEqual(pages.map(() => 200));
            expect(pages).toEqual(await pagesOf(unserved, method));
          }
          for (const group of ALL)
            for (const [method, params] of namedBy(group))
              expect(await asked(method, params)).toEqual(await unserved(method, params));
          const tools = (await pagesOf(asked, 'tools/list')).flatMap(
            (page) =>
              (JSON.parse(page.text) as { result: { tools: { name: string }[] } }).result.tools,
          );
          expect(tools.map((tool) => tool.name)).toEqual(seen.map((group) => `${group}_tool`));
        },
      );
    });

    if (globalAuth) {
      it.each([true, false])(
        "answers a token the app's authentication refuses 401 on every list (fast path %s)",
        async (fastPath) => {
          const server = await serverOf(ALL, fastPath);
          for (const method of LISTS) {
            const answer = await rawRound(server.url, method, {}, { headers: bearer('expired') });
            expect(answer.status).toBe(401);
            expect(answer.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
            expect(answer.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
          }
        },
      );
    } else {
      it('lists to a token nothing authenticates what it lists to nobody', async () => {
        const full = await serverOf(ALL, false);
        const open = await serverOf(['open'], false);
        for (const method of LISTS) {
          const headers = bearer('expired');
          const answer = await rawRound(full.url, method, {}, { id: 1, headers });
          expect(answer.status).toBe(200);
          expect(answer.text).toBe((await rawRound(open.url, method, {}, { id: 1, headers })).text);
        }
      });
    }

    it("keeps a call's refusal as its guard made it: a 401 challenge, or an unknown tool", async () => {
      const server = await serverOf(ALL, false);
      const admin = await rawToolCall(server.url, 'admin_tool', {}, { headers: bearer('bob') });
      expect(admin.status).toBe(401);
      expect(admin.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
      const forbidden = await rawToolCall(
        server.url,
        'forbids_tool',
        {},
        { headers: bearer('bob') },
      );
      expect(forbidden.body.error).toMatchObject({
        code: -32602,
        message: 'Unknown tool: forbids_tool',
      });
    });
  });
});
