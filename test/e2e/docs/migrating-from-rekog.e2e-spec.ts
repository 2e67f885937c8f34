import {
  Injectable,
  ValidationPipe,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_GUARD, APP_PIPE } from '@nestjs/core';
import type { Client } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppModule } from './rekog-after';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { formAnsweringClient, rawRound, rawToolCall } from '../../utils/mcp';
import { guardedRequest } from '../../fixtures/guarded-request';

const PAGE = readFileSync(join(__dirname, '../../..', 'docs', 'migrating-from-rekog.md'), 'utf8');
const FIXTURES = __dirname;

/**
 * The `ts` block under `### <heading>` of the worked example, with the package name pointing at
 * this checkout's source as the fixture's import does. The fixtures are the page's code: `npm run
 * typecheck`, lint and prettier check them, and this suite runs the "after" one.
 */
function example(heading: 'Before' | 'After'): string {
  const start = PAGE.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`docs/migrating-from-rekog.md has no "${heading}" example`);
  const code = /```ts\n([\s\S]*?)```/.exec(PAGE.slice(start))?.[1];
  if (code === undefined) throw new Error(`"${heading}" has no ts block`);
  return code.replace(/from 'nestjs-mcp'/g, "from '../../../src/index'");
}

/** Stands for the app's authentication: `x-scopes: a,b` becomes `req.user.scopes`. */
@Injectable()
class HeaderAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = guardedRequest(context);
    const scopes = req.headers['x-scopes'];
    if (scopes !== undefined) req.user = { id: 'ada', scopes: scopes.split(',') };
    return true;
  }
}

describe('the worked example of docs/migrating-from-rekog.md', () => {
  it.each(['Before', 'After'] as const)('is the type-checked fixture, %s', (heading) => {
    const fixture = join(FIXTURES, `rekog-${heading.toLowerCase()}.ts`);
    expect(example(heading)).toBe(readFileSync(fixture, 'utf8'));
  });
});

describe.each(ADAPTERS)('the migrated example over %s', (adapter) => {
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startTestServer(adapter, {
      imports: [AppModule],
      providers: [
        { provide: APP_GUARD, useClass: HeaderAuthGuard },
        { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, whitelist: true }) },
      ],
    });
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.close();
  });

  async function userWho(confirm: boolean): Promise<{ client: Client; asked: string[] }> {
    const user = await formAnsweringClient(server.url, { action: 'accept', content: { confirm } });
    clients.push(user.client);
    return user;
  }

  it('advertises the JSON Schema of the zod input to a caller with the scope and fills in its default', async () => {
    const listed = await rawRound(
      server.url,
      'tools/list',
      {},
      {
        headers: { 'x-scopes': 'forecast.read' },
      },
    );
    const tools = listed.body.result?.tools as { name: string; inputSchema: unknown }[];
    expect(tools.find((tool) => tool.name === 'get-forecast')?.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 }, days: { type: 'integer', default: 3 } },
      required: expect.arrayContaining(['city']),
    });
    const answered = await rawToolCall(
      server.url,
      'get-forecast',
      { city: 'Oslo' },
      { headers: { 'x-scopes': 'forecast.read' } },
    );
    expect(answered.body.result?.content).toEqual([
      { type: 'text', text: '3-day forecast for Oslo: sunny' },
    ]);
  });

  it('hides the tool from a caller without the scope, whose call answers as for an unknown tool', async () => {
    for (const headers of [{}, { 'x-scopes': 'other' }] as Record<string, string>[]) {
      const refused = await rawToolCall(server.url, 'get-forecast', { city: 'Oslo' }, { headers });
      expect(refused.body.error).toMatchObject({
        code: -32602,
        message: 'Unknown tool: get-forecast',
      });
      const listed = await rawRound(server.url, 'tools/list', {}, { headers });
      const names = (listed.body.result?.tools as { name: string }[]).map((tool) => tool.name);
      expect(names).not.toContain('get-forecast');
    }
  });

  it('asks before deleting, and deletes only when the user confirms', async () => {
    const yes = await userWho(true);
    await expect(
      yes.client.callTool({ name: 'delete-forecast', arguments: { id: 'f1' } }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'Deleted f1' }] });
    expect(yes.asked).toEqual(['Delete forecast f1?']);
    const no = await userWho(false);
    await expect(
      no.client.callTool({ name: 'delete-forecast', arguments: { id: 'f1' } }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'Kept' }] });
  });

  it('answers -32021 to a client that cannot show a form', async () => {
    const refused = await rawToolCall(server.url, 'delete-forecast', { id: 'f1' });
    expect(refused.body.error).toMatchObject({ code: -32021 });
  });
});
