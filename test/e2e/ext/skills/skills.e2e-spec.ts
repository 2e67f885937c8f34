import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import { connectClient, rawRound } from '../../../utils/mcp';
import { connectV2Legacy, SampleUser } from '../../../utils/session-clients';
import { PAYROLL_SKILL_MD, SKILL_FOLDER, skillsApp } from './skills.fixtures';

/** A skill's files (every skill here lists them; none is `"dynamic"`). */
const filesOf = (skill: Skill) => {
  if (skill.resources === 'dynamic') throw new Error(`${skill.uri} is dynamic`);
  return skill.resources;
};

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe.each(ADAPTERS)('skills, over %s', (adapter) => {
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [skillsApp({ lists: { pageSize: 2 } })] });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
  });

  const modern = async (user: string) => {
    const client = await connectClient(server.url, { 'x-user': user });
    clients.push(client);
    return new SkillsClient(client);
  };
  const legacy = async (user: string) => {
    const client = await connectV2Legacy(server.url, new SampleUser(), { 'x-user': user });
    clients.push(client);
    return new SkillsClient(client);
  };

  describe.each([
    ['a 2026-07-28 client', modern],
    ['a 2025-era session', legacy],
  ])('to %s', (_era, connect) => {
    it('lists the folder and the providers, every file digested, SKILL.md first-class', async () => {
      const skills = await connect('alice');
      expect(skills.supported).toBe(true);
      expect(skills.directoryRead).toBe(true);
      const { skills: entries } = await skills.list();
      expect(entries.map((entry) => entry.uri)).toEqual([
        'skill://api-guide/SKILL.md',
        'skill://incident-triage/SKILL.md',
        'skill://payroll-close/SKILL.md',
        'skill://release-notes/SKILL.md',
      ]);
      const triage = entries[1];
      expect(triage.frontmatter).toEqual({
        name: 'incident-triage',
        description:
          'Triage a production incident - classify severity, page the right team, open the bridge.',
        license: 'Apache-2.0',
        metadata: { owner: 'sre', version: '3' },
      });
      const onDisk = await readFile(join(SKILL_FOLDER, 'incident-triage/references/SEVERITY.md'));
      expect(triage.resources).toEqual(
        expect.arrayContaining([
          {
            uri: 'skill://incident-triage/references/SEVERITY.md',
            digest: sha256(onDisk),
            size: onDisk.length,
          },
        ]),
      );
      expect(
        filesOf(triage)
          .map((file) => file.uri)
          .sort(),
      ).toEqual([
        'skill://incident-triage/SKILL.md',
        'skill://incident-triage/references/SEVERITY.md',
        'skill://incident-triage/scripts/page.sh',
      ]);
    });

    it('serves every file exactly as digested: the official client verifies each', async () => {
      const skills = await connect('alice');
      const { skills: entries } = await skills.list();
      for (const entry of entries) {
        const manifest = await skills.read(entry);
        expect(manifest.verified).toBe(true);
        expect(manifest.frontmatter).toEqual(entry.frontmatter);
        for (const file of filesOf(entry)) {
          const read = await skills.read(entry, file.uri);
          expect(read.verified).toBe(true);
          expect(read.bytes.length).toBe(file.size);
        }
      }
      const script = await skills.read(entries[1], 'scripts/page.sh');
      expect(Buffer.from(script.bytes)).toEqual(
        await readFile(join(SKILL_FOLDER, 'incident-triage/scripts/page.sh')),
      );
    });

    it('gets one skill and reads its folders', async () => {
      const skills = await connect('alice');
      const { skill } = await skills.get('skill://incident-triage/SKILL.md');
      expect(skill.frontmatter.name).toBe('incident-triage');
      const root = await skills.readDirectory('skill://incident-triage');
      expect(root.resources.map((child) => [child.uri, child.mimeType])).toEqual(
        expect.arrayContaining([
          ['skill://incident-triage/SKILL.md', 'text/markdown'],
          ['skill://incident-triage/references', 'inode/directory'],
          ['skill://incident-triage/scripts', 'inode/directory'],
        ]),
      );
      const references = await skills.readDirectory('skill://incident-triage/references');
      expect(references.resources.map((child) => child.uri)).toEqual([
        'skill://incident-triage/references/SEVERITY.md',
      ]);
    });

    it('hides a guarded skill from a caller its guard refuses, as if nobody served it', async () => {
      const bob = await connect('bob');
      const { skills: entries } = await bob.list();
      expect(entries.map((entry) => entry.uri)).not.toContain('skill://payroll-close/SKILL.md');
      expect(await refusal(bob.get('skill://payroll-close/SKILL.md'))).toEqual(
        await refusal(bob.get('skill://nobody-serves-this/SKILL.md')),
      );
      expect(await refusal(bob.readDirectory('skill://payroll-close/checklists'))).toEqual(
        await refusal(bob.readDirectory('skill://nobody-serves-this/checklists')),
      );
    });
  });

  it('answers resources/read, resources/list and skills/get alike for a hidden and an unknown skill', async () => {
    const ask = (method: string, params: Record<string, unknown>) =>
      rawRound(server.url, method, params, { headers: { 'x-user': 'bob' } });
    const hidden = await ask('resources/read', { uri: 'skill://payroll-close/SKILL.md' });
    const unknown = await ask('resources/read', { uri: 'skill://payroll-closed/SKILL.md' });
    expect(hidden.status).toBe(unknown.status);
    expect(stripUri(hidden.body)).toEqual(stripUri(unknown.body));
    expect((hidden.body.error as { code: number }).code).toBe(-32602);

    const bobs = await allResources(server.url, 'bob');
    expect(bobs.map((resource) => resource.uri)).toContain('skill://api-guide/SKILL.md');
    expect(bobs.map((resource) => resource.uri)).not.toContain('skill://payroll-close/SKILL.md');
    const alices = await allResources(server.url, 'alice');
    expect(alices.find((resource) => resource.uri === 'skill://payroll-close/SKILL.md')).toEqual({
      uri: 'skill://payroll-close/SKILL.md',
      name: 'payroll-close',
      description: 'Close the payroll month - reconcile, approve, export.',
      mimeType: 'text/markdown',
      size: Buffer.byteLength(PAYROLL_SKILL_MD),
    });
  });

  it('answers the documented errors (docs/errors.md, Skills)', async () => {
    const ask = (method: string, params: Record<string, unknown>) =>
      rawRound(server.url, method, params, { headers: { 'x-user': 'alice' } });
    expect((await ask('skills/list', { cursor: 'bogus' })).body.error).toEqual({
      code: -32602,
      message: 'Invalid cursor',
    });
    expect((await ask('skills/get', { uri: 'skill://nope/SKILL.md' })).body.error).toEqual({
      code: -32602,
      message: 'Skill not found',
      data: { uri: 'skill://nope/SKILL.md' },
    });
    const file = 'skill://incident-triage/references/SEVERITY.md';
    expect((await ask('resources/directory/read', { uri: file })).body.error).toEqual({
      code: -32602,
      message: 'Not a directory resource',
      data: { uri: file },
    });
  });

  it('answers a file read byte for byte alike on the fast path and the SDK path', async () => {
    // A progress token takes a request to the SDK, which writes the file's encoded bytes in place.
    for (const uri of [
      'skill://incident-triage/SKILL.md',
      'skill://incident-triage/references/SEVERITY.md',
      'skill://release-notes/templates/notes.md',
    ]) {
      const fast = await rawRound(server.url, 'resources/read', { uri }, { id: 7 });
      const sdk = await rawRound(
        server.url,
        'resources/read',
        { uri },
        { id: 7, extraMeta: { progressToken: 'p' } },
      );
      expect(sdk.status).toBe(fast.status);
      expect(sdk.text).toBe(fast.text);
      expect(fast.body.result).toMatchObject({ contents: [{ uri }] });
    }
  });

  it('carries ttlMs and cacheScope on 2026-07-28 results', async () => {
    const listed = await rawRound(
      server.url,
      'skills/list',
      {},
      { headers: { 'x-user': 'alice' } },
    );
    expect(listed.body.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    // Four skills in pages of two: the cursor walks to the end, as the operation lists' do.
    const { nextCursor } = listed.body.result as { nextCursor?: string };
    expect(nextCursor).toEqual(expect.any(String));
    const second = await rawRound(
      server.url,
      'skills/list',
      { cursor: nextCursor },
      { headers: { 'x-user': 'alice' } },
    );
    expect((second.body.result as { skills: unknown[] }).skills).toHaveLength(2);
    expect(second.body.result).not.toHaveProperty('nextCursor');
  });
});

/** Every `resources/list` entry `user` sees, every page walked. */
async function allResources(
  url: URL,
  user: string,
): Promise<{ uri: string; name: string; description?: string; mimeType?: string }[]> {
  const seen: { uri: string; name: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await rawRound(url, 'resources/list', cursor ? { cursor } : {}, {
      headers: { 'x-user': user },
    });
    const result = page.body.result as {
      resources: { uri: string; name: string }[];
      nextCursor?: string;
    };
    seen.push(...result.resources);
    cursor = result.nextCursor;
  } while (cursor);
  return seen;
}

/** The code and message a request was refused with. */
async function refusal(pending: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  try {
    await pending;
  } catch (error) {
    return { code: (error as { code?: unknown }).code, message: (error as Error).message };
  }
  throw new Error('expected a refusal');
}

/** A JSON-RPC answer with its id and any skill name in a URI left out: what two refusals share. */
function stripUri(body: Record<string, unknown>): unknown {
  const { id: _id, ...rest } = body;
  return JSON.parse(JSON.stringify(rest).replace(/skill:\/\/[a-z-]+\//g, 'skill://X/'));
}
