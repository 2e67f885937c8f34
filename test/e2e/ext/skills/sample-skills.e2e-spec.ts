import type { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { startSampleApp } from '../../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../../utils/bootstrap';
import { connectClient, rawRound } from '../../../utils/mcp';
import { connectV2Legacy, SampleUser } from '../../../utils/session-clients';
import { serverForSuite } from '../../../utils/suite-server';
import { envForSuite } from '../../../utils/suite-env';
import { modernAsker, sessionAsker, type Ask } from '../../../utils/askers';

const TRIAGE = 'skill://ticket-triage';
/** A URI nobody serves, of the same length as each of ticket-triage's. */
const unserved = (uri: string) => uri.replace('ticket-triage', 'ticket-triagf');

describe.each(ADAPTERS)("the sample's skills, over %s", (adapter) => {
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startSampleApp(adapter, {});
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
  });

  const bearer = (user?: string): Record<string, string> =>
    user ? { authorization: `Bearer ${user}` } : {};

  describe.each([
    ['2026-07-28', async (headers: Record<string, string>) => connectClient(server.url, headers)],
    [
      'a 2025-11-25 session',
      async (headers: Record<string, string>) =>
        connectV2Legacy(server.url, new SampleUser(), headers),
    ],
  ])('through the official SkillsClient, %s', (_era, connect) => {
    const skillsFor = async (user?: string) => {
      const client = await connect(bearer(user));
      clients.push(client);
      return new SkillsClient(client);
    };

    it('lists, gets and verifies every file of every skill alice may see', async () => {
      const skills = await skillsFor('alice');
      const { skills: entries } = await skills.list();
      expect(entries.map((entry) => entry.uri)).toEqual([
        'skill://expense-approval/SKILL.md',
        'skill://ticket-triage/SKILL.md',
        'skill://transfer-review/SKILL.md',
      ]);
      for (const entry of entries) {
        expect((await skills.get(entry.uri)).skill).toEqual(entry);
        if (entry.resources === 'dynamic') throw new Error(`${entry.uri} is dynamic`);
        for (const file of entry.resources) {
          const read = await skills.read(entry, file.uri);
          expect(read.verified).toBe(true);
        }
      }
    });

    it.each([['bob'], [undefined]])('hides ticket-triage from %s', async (user) => {
      const skills = await skillsFor(user);
      const { skills: entries } = await skills.list();
      expect(entries.map((entry) => entry.uri)).toEqual([
        'skill://expense-approval/SKILL.md',
        'skill://transfer-review/SKILL.md',
      ]);
    });
  });

  it.each([['bob'], [undefined]])(
    'answers each ticket-triage URI for %s byte for byte as a URI nobody serves',
    async (user) => {
      const probes: [string, Record<string, unknown>][] = [
        ['skills/get', { uri: `${TRIAGE}/SKILL.md` }],
        ['resources/read', { uri: `${TRIAGE}/SKILL.md` }],
        ['resources/read', { uri: `${TRIAGE}/references/PRIORITIES.md` }],
        ['resources/directory/read', { uri: TRIAGE }],
        ['resources/directory/read', { uri: `${TRIAGE}/references` }],
      ];
      for (const [method, params] of probes) {
        const uri = String(params.uri);
        const hidden = await rawRound(server.url, method, params, { id: 7, headers: bearer(user) });
        const nobody = await rawRound(
          server.url,
          method,
          { uri: unserved(uri) },
          { id: 7, headers: bearer(user) },
        );
        expect(hidden.status).toBe(nobody.status);
        expect(hidden.text.split(uri).join('URI')).toBe(
          nobody.text.split(unserved(uri)).join('URI'),
        );
        expect((hidden.body.error as { code: number }).code).toBe(-32602);
      }
    },
  );
});

/*
 * Red team IV, finding 1: with the admin-only `key-rotation` skill present (MCP_ADMIN_TOKEN set,
 * its guard a 401 for anyone else), every caller's lists answer, with what it may see: signed-in
 * callers who are not the admin included, in both eras.
 */
describe.each(ADAPTERS)("the sample's admin-only skill, over %s", (adapter) => {
  const ADMIN_TOKEN = 'sample-admin-token-for-lists';
  const ROTATION = 'skill://key-rotation';
  envForSuite({ MCP_ADMIN_TOKEN: ADMIN_TOKEN });
  const server = serverForSuite(() => startSampleApp(adapter, {}));

  const callers: [string, Record<string, string>, boolean][] = [
    ['alice', { authorization: 'Bearer alice' }, false],
    ['bob', { authorization: 'Bearer bob' }, false],
    ['nobody', {}, false],
    ['the admin', { authorization: `Bearer ${ADMIN_TOKEN}` }, true],
  ];

  /** `method` in a 2026-07-28 request, or in a 2025-era session opened by the same caller. */
  const eras: [string, (headers: Record<string, string>) => Promise<Ask>][] = [
    ['2026-07-28', async (headers) => modernAsker(server.url, headers, 3)],
    ['a 2025-11-25 session', (headers) => sessionAsker(server.url, headers, 3)],
  ];

  describe.each(eras)('in %s', (_era, askerFor) => {
    it.each(callers)(
      'answers %s skills/list, resources/list and the skill folders with what it may see',
      async (_name, headers, admin) => {
        const ask = await askerFor(headers);
        const skills = await ask('skills/list', {});
        const resources = await ask('resources/list', {});
        for (const answer of [skills, resources]) expect(answer.status).toBe(200);
        const uris = [
          ...(JSON.parse(skills.text) as { result: { skills: { uri: string }[] } }).result.skills,
          ...(JSON.parse(resources.text) as { result: { resources: { uri: string }[] } }).result
            .resources,
        ].map((entry) => entry.uri);
        expect(uris.includes(`${ROTATION}/SKILL.md`)).toBe(admin);
        expect(uris).toContain('skill://expense-approval/SKILL.md');
        for (const uri of [ROTATION, `${ROTATION}/references`]) {
          const folder = await ask('resources/directory/read', { uri });
          if (admin) {
            expect(folder.status).toBe(200);
            expect(folder.text).toContain(`${ROTATION}/`);
            continue;
          }
          const nobody = await ask('resources/directory/read', { uri: unservedRotation(uri) });
          expect(folder.status).toBe(nobody.status);
          expect(folder.text.split(uri).join('URI')).toBe(
            nobody.text.split(unservedRotation(uri)).join('URI'),
          );
        }
      },
    );
  });
});

/** A URI nobody serves, of the same length as each of key-rotation's. */
const unservedRotation = (uri: string) => uri.replace('key-rotation', 'key-rotatiom');

/** One answer as the client gets it: the HTTP status and the body's bytes. */
