import {
  Injectable,
  Module,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  McpContext,
  McpInputRequirement,
  McpMayRequestInput,
  McpModule,
  McpTool,
} from '../src/index';
import { CalendarSignIns, CalendarTools } from './fixtures/docs/sign-in-url';
import { ADAPTERS, startTestServer, type TestServer } from './utils/bootstrap';
import { expectInputRequired } from './utils/expect-rpc';
import { PROTOCOL_VERSION, rawToolCall, resultText, stateOf } from './utils/mcp';
import { textOf } from './utils/session-clients';

/*
 * The sign-in URL recipe of docs/replay.md: the page's code is test/fixtures/docs/sign-in-url.ts
 * (type-checked, linted), and it runs here — a replay-style tool that sends the user to a sign-in
 * page whose URL is made from ctx.flowId, completed by the official client pinned to 2026-07-28 and
 * in a 2025-era session, on both adapters; beside it, what the recipe avoids: a fresh random URL
 * per round is refused on the retry.
 */

const PAGE = readFileSync(join(__dirname, '..', 'docs', 'replay.md'), 'utf8');
const URL_ASKS = { elicitation: { url: {} } };
const CONNECT = 'https://calendar.example.com/connect/';

function recipe(): string {
  const start = PAGE.indexOf('\n## A sign-in URL\n');
  if (start < 0) throw new Error('docs/replay.md has no "A sign-in URL" section');
  const code = /```ts\n([\s\S]*?)```/.exec(PAGE.slice(start))?.[1];
  if (code === undefined) throw new Error('"A sign-in URL" has no ts block');
  return code.replace(/from 'nestjs-mcp'/g, "from '../../../src/index'");
}

/** Stands for the app's authentication: `x-user: ada` signs ada in. */
@Injectable()
class HeaderAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{
      headers: Record<string, string | undefined>;
      user?: unknown;
    }>();
    const id = req.headers['x-user'];
    if (id === undefined) throw new UnauthorizedException();
    req.user = { id };
    return true;
  }
}

/** What the recipe avoids: a fresh random sign-in URL on every round. */
@Injectable()
class RandomUrlTools {
  @McpTool({ name: 'random_sign_in', description: 'A URL per round', replay: true })
  @McpMayRequestInput({ type: 'elicitation.url', requirement: McpInputRequirement.REQUIRED })
  async randomSignIn(@McpContext() ctx: McpContext): Promise<string> {
    const answer = await ctx.elicitUrl({ message: 'Sign in', url: `${CONNECT}${randomUUID()}` });
    return answer.action;
  }
}

@Module({
  imports: [McpModule.forRoot({ allowEphemeralKey: true })],
  providers: [
    CalendarSignIns,
    CalendarTools,
    RandomUrlTools,
    { provide: APP_GUARD, useClass: HeaderAuthGuard },
  ],
})
class CalendarApp {}

describe('the sign-in URL recipe of docs/replay.md', () => {
  it('is the type-checked fixture', () => {
    expect(recipe()).toBe(readFileSync(join(__dirname, 'fixtures/docs/sign-in-url.ts'), 'utf8'));
  });
});

describe.each(ADAPTERS)('the sign-in URL recipe over %s', (adapter) => {
  let server: TestServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [CalendarApp] });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await server?.close();
  });

  /**
   * The official client as ada, pinned to 2026-07-28 or in a 2025-era session; her browser
   * finishes the sign-in at the URL before the client says she accepted.
   */
  async function ada(pinned: boolean, asked: string[]): Promise<Client> {
    const client = new Client(
      { name: 'calendar-user', version: '1.0.0' },
      {
        ...(pinned && { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } }),
        capabilities: URL_ASKS,
      },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      const { url } = request.params as { url: string };
      asked.push(url);
      server.app.get(CalendarSignIns).finish(url.slice(CONNECT.length), 'ada');
      return { action: 'accept' };
    });
    await client.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { 'x-user': 'ada' } },
      }),
    );
    clients.push(client);
    return client;
  }

  it.each([
    ['pinned to 2026-07-28', true],
    ['in a 2025-era session', false],
  ])('connects the calendar through the official client %s', async (_era, pinned) => {
    const asked: string[] = [];
    const client = await ada(pinned, asked);
    const result = await client.callTool({ name: 'connect_calendar', arguments: {} });
    expect(textOf(result)).toBe('Calendar connected');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^https:\/\/calendar\.example\.com\/connect\/[0-9a-f-]{36}$/);
  });

  it('asks the same URL on the retry, and connects only the user who started the flow', async () => {
    const ask = { method: 'elicitation/create', params: expect.objectContaining({ mode: 'url' }) };
    const first = await rawToolCall(
      server.url,
      'connect_calendar',
      {},
      { capabilities: URL_ASKS, headers: { 'x-user': 'ada' } },
    );
    expectInputRequired(first, { 'ask-1': ask });
    const { url } = (first.body.result?.inputRequests?.['ask-1'] as { params: { url: string } })
      .params;
    // Bob signing in at ada's page connects nothing.
    expect(server.app.get(CalendarSignIns).finish(url.slice(CONNECT.length), 'bob')).toBe(false);
    const retry = await rawToolCall(
      server.url,
      'connect_calendar',
      {},
      {
        capabilities: URL_ASKS,
        headers: { 'x-user': 'ada' },
        inputResponses: { 'ask-1': { action: 'accept' } },
        requestState: stateOf(first),
      },
    );
    expect(resultText(retry)).toBe(
      'The sign-in is not finished: call connect_calendar again once it is',
    );
  });

  it('refuses the retry of a tool that makes a fresh random URL every round', async () => {
    const first = await rawToolCall(
      server.url,
      'random_sign_in',
      {},
      { capabilities: URL_ASKS, headers: { 'x-user': 'ada' } },
    );
    const retry = await rawToolCall(
      server.url,
      'random_sign_in',
      {},
      {
        capabilities: URL_ASKS,
        headers: { 'x-user': 'ada' },
        inputResponses: { 'ask-1': { action: 'accept' } },
        requestState: stateOf(first),
      },
    );
    expect(retry.body.error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('the question at "ask-1" differs'),
    });
  });
});
