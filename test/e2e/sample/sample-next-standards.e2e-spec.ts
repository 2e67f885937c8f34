import { newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { rawRound, rawToolCall } from '../../utils/mcp';

/*
 * The sample app with the drafts it can be asked to follow: MCP_RATE_LIMIT_ERRORS=sep-3304 answers
 * the throttled create_ticket with SEP-3304's -32023 (limit and remaining, RateLimit-* headers),
 * MCP_SERVER_CARD=1 serves the server card (SEP-2127) at /mcp/server-card, consistent with
 * server/discover.
 */

const TICKET = { title: 'Printer on fire', priority: 'high' };
const ALICE = { Authorization: 'Bearer alice' };

describe.each(ADAPTERS)('the sample app with the draft standards over %s', (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startSampleApp(adapter, {
      MCP_KEYRING: newKeyring(['k1']).json,
      MCP_RATE_LIMIT_ERRORS: 'sep-3304',
      MCP_SERVER_CARD: '1',
    });
  });
  afterAll(() => server?.close());

  it('answers the 31st create_ticket of a minute with -32023, the limit and what remains', async () => {
    for (let i = 0; i < 30; i++)
      expect(
        (await rawToolCall(server.url, 'create_ticket', TICKET, { headers: ALICE })).status,
      ).toBe(200);
    const over = await rawToolCall(server.url, 'create_ticket', TICKET, { headers: ALICE });
    expect(over.status).toBe(429);
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(over.body.error).toEqual({
      code: -32023,
      message: 'Rate limited',
      data: { retryAfterMs: retryAfter * 1000, limit: 30, remaining: 0 },
    });
    expect(over.headers['ratelimit-limit']).toBe('30');
    expect(over.headers['ratelimit-remaining']).toBe('0');
  });

  it('serves its server card, named and versioned as server/discover says', async () => {
    const response = await fetch(`${server.url.href}/server-card`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json');
    const card = (await response.json()) as Record<string, unknown>;
    const discovered = await rawRound(server.url, 'server/discover', {});
    const serverInfo = (discovered.body.result?._meta as Record<string, Record<string, unknown>>)[
      'io.modelcontextprotocol/serverInfo'
    ];
    expect(card).toMatchObject({
      name: 'dev.nestjs-mcp/sample',
      version: serverInfo.version,
      description: serverInfo.description,
      remotes: [{ type: 'streamable-http', url: server.url.href }],
    });
    expect(serverInfo.name).toBe(card.name);
  });
});
