import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type KeyLike } from 'jose';
import { resolveAuthOptions } from './auth.options';
import { JwtAccessTokenVerifier } from './jwt-access-token.verifier';
import { TokenRejectedError } from './token-rejected.error';

const ISSUER = 'https://auth.example.com/';
const RESOURCE = new URL('https://api.example.com/mcp');

describe('JwtAccessTokenVerifier', () => {
  let server: Server;
  let jwksUri: string;
  let privateKey: KeyLike;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const verifier = (extra: Record<string, unknown> = {}) =>
    new JwtAccessTokenVerifier(
      resolveAuthOptions({ resourceServer: { issuer: ISSUER, jwksUri, ...extra } }).resourceServer!,
    );

  /** A token of `ISSUER` for `RESOURCE` expiring in 5 minutes; `set` overrides what it names. */
  const token = (
    claims: Record<string, unknown> = {},
    set: { audience?: string | null; issuer?: string; exp?: number } = {},
  ) => {
    const jwt = new SignJWT({ scope: 'a b', client_id: 'app', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(set.issuer ?? ISSUER)
      .setSubject('user-1')
      .setExpirationTime(set.exp ?? '5m');
    if (set.audience !== null) jwt.setAudience(set.audience ?? RESOURCE.href);
    return jwt.sign(privateKey);
  };

  const reason = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(TokenRejectedError);
    return (error as TokenRejectedError).reason;
  };

  it('accepts a token for this resource and gives the SDK AuthInfo without the claims', async () => {
    const jwt = await token();
    expect(await verifier().verify(jwt, RESOURCE)).toEqual({
      token: jwt,
      clientId: 'app',
      scopes: ['a', 'b'],
      expiresAt: expect.any(Number),
      resource: RESOURCE,
      extra: { sub: 'user-1', iss: ISSUER },
    });
  });

  it('refuses a token without aud unless acceptTokensWithoutAudience, and one for another audience always', async () => {
    const noAudience = await token({}, { audience: null });
    expect(await reason(verifier().verify(noAudience, RESOURCE))).toBe(
      'The access token was not issued for this resource',
    );
    await expect(
      verifier({ acceptTokensWithoutAudience: true }).verify(noAudience, RESOURCE),
    ).resolves.toMatchObject({ clientId: 'app' });
    const other = await token({}, { audience: 'https://other.example.com/mcp' });
    expect(
      await reason(verifier({ acceptTokensWithoutAudience: true }).verify(other, RESOURCE)),
    ).toBe('The access token was not issued for this resource');
  });

  it('refuses an expired token past the clock skew, and accepts one within it', async () => {
    const expired = await token({}, { exp: Math.floor(Date.now() / 1000) - 10 });
    expect(await reason(verifier({ clockToleranceSeconds: 0 }).verify(expired, RESOURCE))).toBe(
      'The access token expired',
    );
    await expect(
      verifier({ clockToleranceSeconds: 60 }).verify(expired, RESOURCE),
    ).resolves.toBeDefined();
  });

  it('refuses an algorithm outside the allow-list and a token of another issuer', async () => {
    expect(await reason(verifier({ algorithms: ['ES256'] }).verify(await token(), RESOURCE))).toBe(
      'The access token is signed with an algorithm not accepted',
    );
    expect(
      await reason(
        verifier().verify(await token({}, { issuer: 'https://evil.example.com/' }), RESOURCE),
      ),
    ).toBe('The access token was issued by another authorization server');
  });

  it('refuses a token without exp', async () => {
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE.href)
      .sign(privateKey);
    expect(await reason(verifier().verify(jwt, RESOURCE))).toBe(
      "The access token's exp claim is not accepted",
    );
  });

  it('says the keys are unavailable (not that the token is bad) when the JWKS does not answer', async () => {
    const down = new JwtAccessTokenVerifier(
      resolveAuthOptions({
        resourceServer: { issuer: ISSUER, jwksUri: 'http://127.0.0.1:1/jwks' },
      }).resourceServer!,
    );
    const error = await down.verify(await token(), RESOURCE).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ unavailable: true });
    expect(await reason(verifier().verify('not-a-jwt', RESOURCE))).toBe(
      'The access token is malformed',
    );
  });

  describe('an authorization server that answers badly', () => {
    let broken: Server;
    let origin: string;
    /** What each path answers, and how many times each was asked. */
    const answers: Record<string, (res: import('node:http').ServerResponse) => void> = {};
    const asked: Record<string, number> = {};

    beforeAll(async () => {
      broken = createServer((req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        asked[path] = (asked[path] ?? 0) + 1;
        (answers[path] ?? ((r) => r.writeHead(404).end()))(res);
      });
      await new Promise<void>((done) => broken.listen(0, '127.0.0.1', done));
      origin = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((done) => broken.close(() => done())));

    const unavailable = async (promise: Promise<unknown>) =>
      (await promise.then(
        () => undefined,
        (thrown: unknown) => thrown,
      )) as TokenRejectedError | undefined;

    it.each([
      ['HTTP 500', (res: import('node:http').ServerResponse) => res.writeHead(500).end('oops')],
      [
        'an HTML page',
        (res: import('node:http').ServerResponse) =>
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>'),
      ],
    ])(
      'takes a JWKS answering %s as keys unavailable (a 503), never as a malformed token',
      async (_what, answer) => {
        answers['/bad-jwks'] = answer;
        const down = new JwtAccessTokenVerifier(
          resolveAuthOptions({ resourceServer: { issuer: ISSUER, jwksUri: `${origin}/bad-jwks` } })
            .resourceServer!,
        );
        const error = await unavailable(down.verify(await token(), RESOURCE));
        expect(error).toBeInstanceOf(TokenRejectedError);
        expect(error).toMatchObject({ unavailable: true });
      },
    );

    it('asks failing metadata once while it keeps failing, not once per request', async () => {
      const issuer = `${origin}/down/`;
      answers['/.well-known/oauth-authorization-server/down'] = (res) => res.writeHead(500).end();
      answers['/down/.well-known/openid-configuration'] = (res) => res.writeHead(500).end();
      const down = new JwtAccessTokenVerifier(
        resolveAuthOptions({ resourceServer: { issuer } }).resourceServer!,
      );
      const jwt = await token({}, { issuer });
      for (let request = 0; request < 10; request++)
        expect(await unavailable(down.verify(jwt, RESOURCE))).toMatchObject({ unavailable: true });
      expect(asked['/.well-known/oauth-authorization-server/down']).toBe(1);
      expect(asked['/down/.well-known/openid-configuration']).toBe(1);
    });

    it('fetches a failing JWKS once per pause of 5 s, not once per request, and again after it', async () => {
      const keySet = await (await fetch(jwksUri)).text();
      let up = false;
      answers['/flaky-jwks'] = (res) =>
        up
          ? res.writeHead(200, { 'content-type': 'application/json' }).end(keySet)
          : res.writeHead(500).end();
      const flaky = new JwtAccessTokenVerifier(
        resolveAuthOptions({ resourceServer: { issuer: ISSUER, jwksUri: `${origin}/flaky-jwks` } })
          .resourceServer!,
      );
      const jwt = await token();
      for (let request = 0; request < 10; request++)
        expect(await unavailable(flaky.verify(jwt, RESOURCE))).toMatchObject({ unavailable: true });
      expect(asked['/flaky-jwks']).toBe(1);
      up = true;
      const now = Date.now();
      const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 5_001);
      try {
        await expect(flaky.verify(jwt, RESOURCE)).resolves.toMatchObject({ clientId: 'app' });
      } finally {
        clock.mockRestore();
      }
      expect(asked['/flaky-jwks']).toBe(2);
    });

    it('never pauses the key set for a token naming a key it does not have', async () => {
      const keys = verifier();
      const unknownKey = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'not-in-the-set' })
        .setIssuer(ISSUER)
        .setAudience(RESOURCE.href)
        .setExpirationTime('5m')
        .sign(privateKey);
      expect(await reason(keys.verify(unknownKey, RESOURCE))).toBe(
        'The access token is signed by an unknown key',
      );
      await expect(keys.verify(await token(), RESOURCE)).resolves.toMatchObject({
        clientId: 'app',
      });
    });

    it('asks both metadata documents at once, so a hanging issuer costs one timeout, not two', async () => {
      const issuer = `${origin}/slow/`;
      const held: import('node:http').ServerResponse[] = [];
      const hold = (res: import('node:http').ServerResponse) => {
        held.push(res);
        // Answered only once both requests are in: asked one after the other, the second never comes.
        if (held.length === 2) for (const each of held) each.writeHead(500).end();
      };
      answers['/.well-known/oauth-authorization-server/slow'] = hold;
      answers['/slow/.well-known/openid-configuration'] = hold;
      const slow = new JwtAccessTokenVerifier(
        resolveAuthOptions({ resourceServer: { issuer } }).resourceServer!,
      );
      expect(await unavailable(slow.verify(await token({}, { issuer }), RESOURCE))).toMatchObject({
        unavailable: true,
      });
      expect(asked['/slow/.well-known/openid-configuration']).toBe(1);
    });
  });
});
