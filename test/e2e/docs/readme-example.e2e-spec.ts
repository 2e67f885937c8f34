import { ValidationPipe, type Type } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import type { Client } from '@modelcontextprotocol/client';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { formAnsweringClient, type FormAnswer } from '../../utils/mcp';

/**
 * The README's "A tool that asks before it acts" example, taken from README.md as written (only
 * the package name points at this checkout's source), so the documentation is what runs here.
 */
function readmeExample(): { AppModule: Type<unknown> } {
  const readme = readFileSync(join(__dirname, '../../..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A tool that asks before it acts'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('README.md has no example under "A tool that asks before it acts"');
  const directory = join(__dirname, '../../.generated');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'readme-example.ts');
  writeFileSync(file, code.replace(/from 'nestjs-mcp'/g, "from '../../src/index'"));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is written above
  return require(file) as { AppModule: Type<unknown> };
}

describe.each(ADAPTERS)('the README example over %s', (adapter) => {
  let server: TestServer;
  let files: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    files = mkdtempSync(join(tmpdir(), 'readme-files-'));
    for (const name of ['a.txt', 'b.txt']) writeFileSync(join(files, name), 'content');
    process.env.FILES_ROOT = files;
    const key = randomBytes(32).toString('base64');
    process.env.MCP_KEYRING = JSON.stringify({ active: 'k1', keys: { k1: key } });
    const { AppModule } = readmeExample();
    server = await startTestServer(adapter, {
      imports: [AppModule],
      providers: [
        { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
      ],
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
    delete process.env.FILES_ROOT;
    delete process.env.MCP_KEYRING;
    rmSync(files, { recursive: true, force: true });
  });

  /** An official client whose user answers every form with `answer`, recording the messages. */
  async function userWho(answer: FormAnswer): Promise<{ client: Client; asked: string[] }> {
    const user = await formAnsweringClient(server.url, answer);
    clients.push(user.client);
    return user;
  }

  it('asks, then deletes when the user confirms', async () => {
    const { client, asked } = await userWho({ action: 'accept', content: { confirm: true } });
    const result = await client.callTool({ name: 'deleteFile', arguments: { path: 'a.txt' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Deleted a.txt' }]);
    expect(asked).toEqual(['Delete a.txt?']);
    expect(existsSync(join(files, 'a.txt'))).toBe(false);
  });

  it.each<[string, FormAnswer]>([
    ['declines', { action: 'decline' }],
    ['cancels', { action: 'cancel' }],
    ['answers no', { action: 'accept', content: { confirm: false } }],
  ])('keeps the file when the user %s', async (_, answer) => {
    const { client } = await userWho(answer);
    const result = await client.callTool({ name: 'deleteFile', arguments: { path: 'b.txt' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Kept the file' }]);
    expect(existsSync(join(files, 'b.txt'))).toBe(true);
  });

  it('deletes nothing outside FILES_ROOT, even when the user confirms', async () => {
    const outside = join(files, '..', `readme-outside-${adapter}.txt`);
    writeFileSync(outside, 'keep me');
    try {
      const { client } = await userWho({ action: 'accept', content: { confirm: true } });
      await expect(
        client.callTool({
          name: 'deleteFile',
          arguments: { path: `../readme-outside-${adapter}.txt` },
        }),
      ).rejects.toMatchObject({ code: -32603 });
      expect(existsSync(outside)).toBe(true);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('advertises the input schema generated from DeleteFileDto', async () => {
    const { client } = await userWho({ action: 'cancel' });
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'deleteFile')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string', maxLength: 255 } },
      required: ['path'],
    });
  });
});
