import { Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool, type McpModuleOptions } from '../../../src/index';
import {
  ALL_ADAPTERS,
  startTestServer,
  startupError,
  type TestServer,
} from '../../utils/bootstrap';
import { rawRound } from '../../utils/mcp';

/*
 * The experimental server card (SEP-2127 draft, schema v1): off by default; with `serverCard` on,
 * `GET <endpoint>/server-card` answers `application/mcp-server-card+json`, cached an hour, readable
 * from any origin, revalidated with its ETag, built from serverInfo, the endpoint's URL and the
 * revisions served — consistent with `server/discover`, listing no tools or capabilities. Both
 * adapters.
 */

const SERVER_INFO = {
  name: 'com.example/orders',
  version: '1.4.2',
  title: 'Orders',
  description: 'Looks up and changes orders',
  websiteUrl: 'https://example.com/orders',
};

@Injectable()
class Orders {
  @McpTool({ name: 'find_order', description: 'Finds an order' })
  find(): string {
    return 'found';
  }
}

function app(options: McpModuleOptions): { imports: unknown[] } {
  @Module({
    imports: [McpModule.forRoot({ allowEphemeralKey: true, ...options })],
    providers: [Orders],
  })
  class CardApp {}
  return { imports: [CardApp] };
}

describe.each(ALL_ADAPTERS)('the server card over %s', (adapter) => {
  let on: TestServer;
  let modernOnly: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    on = await startTestServer(
      adapter,
      app({ serverInfo: SERVER_INFO, serverCard: true }) as never,
    );
    modernOnly = await startTestServer(
      adapter,
      app({
        serverInfo: SERVER_INFO,
        serverCard: true,
        sessions: { enabled: false },
        auth: { resource: 'https://api.example.com/orders/mcp' },
      }) as never,
    );
    off = await startTestServer(adapter, app({ serverInfo: SERVER_INFO }) as never);
  });
  afterAll(async () => {
    for (const server of [on, modernOnly, off]) await server?.close();
  });

  const cardUrl = (server: TestServer) => `${server.url.href}/server-card`;

  it('serves the card from serverInfo, the endpoint URL and the revisions it serves, with the draft headers', async () => {
    const response = await fetch(cardUrl(on), {
      headers: { accept: 'application/mcp-server-card+json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(await response.json()).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      ...SERVER_INFO,
      remotes: [
        {
          type: 'streamable-http',
          url: on.url.href,
          supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18'],
        },
      ],
    });
  });

  it('agrees with server/discover: the same name and version, every version it lists', async () => {
    const card = (await (await fetch(cardUrl(on))).json()) as {
      name: string;
      version: string;
      remotes: { supportedProtocolVersions: string[] }[];
    };
    const discovered = await rawRound(on.url, 'server/discover', {});
    const result = discovered.body.result as {
      supportedVersions: string[];
      _meta: Record<string, { name: string; version: string; description?: string }>;
    };
    const serverInfo = result._meta['io.modelcontextprotocol/serverInfo'];
    expect(serverInfo).toMatchObject({ name: card.name, version: card.version });
    expect(serverInfo.description).toBe(SERVER_INFO.description);
    const listed = card.remotes[0].supportedProtocolVersions;
    expect(result.supportedVersions.length).toBeGreaterThan(0);
    for (const version of result.supportedVersions) expect(listed).toContain(version);
    // No tools and no capabilities: the draft leaves them to the connection.
    expect(card).not.toHaveProperty('tools');
    expect(JSON.stringify(card)).not.toContain('find_order');
    expect(JSON.stringify(card)).not.toContain('capabilities');
  });

  it('names the configured public URL and, without 2025-era sessions, 2026-07-28 only', async () => {
    const card = (await (await fetch(cardUrl(modernOnly))).json()) as { remotes: unknown[] };
    expect(card.remotes).toEqual([
      {
        type: 'streamable-http',
        url: 'https://api.example.com/orders/mcp',
        supportedProtocolVersions: ['2026-07-28'],
      },
    ]);
  });

  it('revalidates: 304 for its ETag, answers the CORS preflight and HEAD', async () => {
    const first = await fetch(cardUrl(on));
    const etag = first.headers.get('etag') as string;
    const again = await fetch(cardUrl(on), { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    const preflight = await fetch(cardUrl(on), {
      method: 'OPTIONS',
      headers: { origin: 'https://inspector.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'Content-Type, If-None-Match',
    );
    const head = await fetch(cardUrl(on), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('is not served by default', async () => {
    expect((await fetch(cardUrl(off))).status).toBe(404);
  });
});

describe('the server card at startup', () => {
  it.each([
    ['serverInfo.name', { name: 'orders', version: '1', description: 'Orders' }],
    ['serverInfo.description', { name: 'com.example/orders', version: '1' }],
    [
      'serverInfo.description',
      { name: 'com.example/orders', version: '1', description: 'x'.repeat(101) },
    ],
  ])('fails naming %s when serverInfo cannot make the card', async (option, serverInfo) => {
    const error = await startupError('express', app({ serverInfo, serverCard: true }) as never);
    expect(error?.message).toContain(`"${option}"`);
  });
});
