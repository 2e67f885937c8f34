import { generateKeyPair, SignJWT } from 'jose';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessApp } from './access.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawRound } from '../../utils/mcp';
import { initializeRaw } from '../../utils/session-clients';

/*
 * The built-in resource server in front of an authorization server that is down or broken — its
 * metadata or its key set answering 500, an HTML page, or nothing — on both adapters and both
 * protocol eras: a well-formed token is never answered 401 "malformed" (which would send a client
 * to sign in again) but 503 with Retry-After, and the issuer is not asked again for every request.
 */

const UNAVAILABLE = {
  code: -32000,
  message: 'Server busy: the authorization server is unavailable',
  data: { retryAfterMs: 5_000 },
};

type Answer = (res: ServerResponse) => void;

/** An issuer on 127.0.0.1 whose every path answers as `answers` says; it counts what it was asked. */
class BrokenIssuer {
  readonly answers: Record<string, Answer> = {};
  readonly asked: Record<string, number> = {};
  private readonly held: ServerResponse[] = [];
  private server: Server | undefined;
  origin = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://issuer').pathname;
      this.asked[path] = (this.asked[path] ?? 0) + 1;
      (this.answers[path] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
    });
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Holds the response open until the issuer stops (a hanging authorization server). */
  hang: Answer = (res) => {
    this.held.push(res);
  };

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }
}

describe.each(ADAPTERS)('an authorization server that cannot be read, over %s', (adapter) => {
  const issuer = new BrokenIssuer();
  const servers: TestServer[] = [];
  let privateKey: CryptoKey;

  beforeAll(async () => {
    await issuer.start();
    ({ privateKey } = await generateKeyPair('ES256'));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await issuer.stop();
  });

  /** An app of the resource server for the issuer at `path` (its metadata found by discovery). */
  async function resourceServerFor(path: string): Promise<TestServer> {
    const server = await startTestServer(adapter, {
      imports: [accessApp(true, { resourceServer: { issuer: `${issuer.origin}${path}` } })],
    });
    servers.push(server);
    return server;
  }

  /** A well-formed token of that issuer for `server` (its signature is never reached). */
  function tokenFor(server: TestServer, path: string): Promise<string> {
    return new SignJWT({ scope: 'mcp:tools' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(`${issuer.origin}${path}`)
      .setAudience(server.url.href)
      .setSubject('alice')
      .setExpirationTime('5m')
      .sign(privateKey);
  }

  /** Metadata that names the issuer and its key set at `/<name>/jwks`. */
  function metadataUp(name: string): void {
    issuer.answers[`/.well-known/oauth-authorization-server/${name}`] = (res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: `${issuer.origin}/${name}`,
          jwks_uri: `${issuer.origin}/${name}/jwks`,
        }),
      );
  }

  /** What a list and a 2025-era initialize with the token get: both the 503 with Retry-After. */
  async function expectUnavailable(server: TestServer, token: string): Promise<void> {
    const headers = { Authorization: `Bearer ${token}` };
    const listed = await rawRound(server.url, 'tools/list', {}, { headers });
    expect(listed.status).toBe(503);
    expect(listed.headers['retry-after']).toBe('5');
    expect(listed.body.error).toEqual(UNAVAILABLE);
    const opened = await initializeRaw(server.url, headers);
    expect(opened.status).toBe(503);
    expect(opened.sessionId).toBeUndefined();
    expect(opened.messages).toEqual([{ jsonrpc: '2.0', id: 0, error: UNAVAILABLE }]);
  }

  it.each<[string, Answer]>([
    ['HTTP 500', (res) => res.writeHead(500).end('Internal Server Error')],
    [
      'an HTML page',
      (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>'),
    ],
  ])(
    'answers 503 with Retry-After, not 401 malformed, while its key set answers %s, and fetches it once for many requests',
    async (what, answer) => {
      const name = `jwks-${what.replace(/\W+/g, '-')}-${adapter}`;
      metadataUp(name);
      issuer.answers[`/${name}/jwks`] = answer;
      const server = await resourceServerFor(`/${name}`);
      const token = await tokenFor(server, `/${name}`);
      await expectUnavailable(server, token);
      for (let request = 0; request < 8; request++) {
        const listed = await rawRound(
          server.url,
          'tools/list',
          {},
          { headers: { Authorization: `Bearer ${token}` } },
        );
        expect(listed.status).toBe(503);
      }
      // Ten requests: the key set was asked once, then paused for the Retry-After it names.
      expect(issuer.asked[`/${name}/jwks`]).toBe(1);
    },
  );

  it('answers 503 while its metadata fails, asking each document once for many requests', async () => {
    const name = `metadata-down-${adapter}`;
    issuer.answers[`/.well-known/oauth-authorization-server/${name}`] = (res) =>
      res.writeHead(500).end();
    issuer.answers[`/${name}/.well-known/openid-configuration`] = (res) => res.writeHead(502).end();
    const server = await resourceServerFor(`/${name}`);
    const token = await tokenFor(server, `/${name}`);
    for (let request = 0; request < 4; request++) await expectUnavailable(server, token);
    expect(issuer.asked[`/.well-known/oauth-authorization-server/${name}`]).toBe(1);
    expect(issuer.asked[`/${name}/.well-known/openid-configuration`]).toBe(1);
  });

  it('answers 503 when the issuer hangs (after its 5 s timeout, both documents asked at once)', async () => {
    const name = `hanging-${adapter}`;
    issuer.answers[`/.well-known/oauth-authorization-server/${name}`] = issuer.hang;
    issuer.answers[`/${name}/.well-known/openid-configuration`] = issuer.hang;
    const server = await resourceServerFor(`/${name}`);
    const listed = await rawRound(
      server.url,
      'tools/list',
      {},
      { headers: { Authorization: `Bearer ${await tokenFor(server, `/${name}`)}` } },
    );
    expect(listed.status).toBe(503);
    expect(listed.headers['retry-after']).toBe('5');
    expect(listed.body.error).toEqual(UNAVAILABLE);
    expect(issuer.asked[`/.well-known/oauth-authorization-server/${name}`]).toBe(1);
    expect(issuer.asked[`/${name}/.well-known/openid-configuration`]).toBe(1);
  });
});
