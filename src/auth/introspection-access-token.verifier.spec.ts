import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveAuthOptions } from './auth.options';
import { IntrospectionAccessTokenVerifier } from './introspection-access-token.verifier';

const ISSUER = 'https://auth.example.com/';
const RESOURCE = new URL('https://api.example.com/mcp');

describe('IntrospectionAccessTokenVerifier', () => {
  let server: Server;
  let endpoint: string;
  const asked: string[] = [];
  const active = new Set(['t1', 't2', 't3']);

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const token = new URLSearchParams(body).get('token') ?? '';
        asked.push(token);
        const answer = active.has(token)
          ? {
              active: true,
              iss: ISSUER,
              aud: RESOURCE.href,
              exp: Math.floor(Date.now() / 1000) + 600,
              client_id: 'app',
              sub: 'u',
              scope: 'a',
            }
          : { active: false };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => asked.splice(0));

  const verifier = (maxCacheEntries: number) =>
    new IntrospectionAccessTokenVerifier(
      resolveAuthOptions({
        resourceServer: {
          issuer: ISSUER,
          introspection: { endpoint, clientId: 'rs', clientSecret: 's', maxCacheEntries },
        },
      }).resourceServer!,
    );

  it('asks once per token while it is cached, and keeps at most maxCacheEntries answers', async () => {
    const v = verifier(2);
    for (const token of ['t1', 't1', 't2', 't2', 't3', 't1'])
      await expect(v.verify(token, RESOURCE)).resolves.toMatchObject({
        clientId: 'app',
        scopes: ['a'],
      });
    // t3 pushed t1 out (two entries at most), so t1 was asked again.
    expect(asked).toEqual(['t1', 't2', 't3', 't1']);
  });

  it('does not cache an inactive token, and refuses it', async () => {
    const v = verifier(10);
    for (let i = 0; i < 2; i++)
      await expect(v.verify('revoked', RESOURCE)).rejects.toMatchObject({
        reason: 'The access token is not active',
      });
    expect(asked).toEqual(['revoked', 'revoked']);
  });
});
