import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { resolveAuthOptions } from './auth.options';

describe('resolveAuthOptions', () => {
  it('lists per caller and serves no metadata by default', () => {
    expect(resolveAuthOptions(undefined)).toEqual({
      resource: undefined,
      authorizationServers: [],
      scopesSupported: [],
      lists: 'caller',
      resourceServer: undefined,
      servesMetadata: false,
    });
  });

  it('defaults the resource server: the issuer advertised, asymmetric algorithms, 30 s skew, a token required', () => {
    const resolved = resolveAuthOptions({
      resource: 'https://api.example.com/mcp',
      resourceServer: { issuer: 'https://auth.example.com/' },
    });
    expect(resolved.authorizationServers).toEqual(['https://auth.example.com/']);
    expect(resolved.servesMetadata).toBe(true);
    expect(resolved.resourceServer).toMatchObject({
      audiences: [],
      algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      clockToleranceSeconds: 30,
      acceptTokensWithoutAudience: false,
      requireToken: true,
      introspection: undefined,
    });
  });

  it.each([
    ['auth.lists', { lists: 'everyone' }],
    ['auth.resource', { resource: 'not a url' }],
    ['auth.resource', { resource: 'https://api.example.com/mcp#frag' }],
    ['auth.resourceServer.issuer', { resourceServer: {} }],
    [
      'auth.resourceServer.algorithms',
      { resourceServer: { issuer: 'https://a/', algorithms: ['HS256'] } },
    ],
    [
      'auth.resourceServer.algorithms',
      { resourceServer: { issuer: 'https://a/', algorithms: ['none'] } },
    ],
    [
      'auth.resourceServer.clockToleranceSeconds',
      { resourceServer: { issuer: 'https://a/', clockToleranceSeconds: 301 } },
    ],
    ['auth.scopesSupported', { scopesSupported: ['two words'] }],
    [
      'auth.resourceServer.introspection.clientSecret',
      {
        resourceServer: {
          issuer: 'https://a/',
          introspection: { endpoint: 'https://a/i', clientId: 'x' },
        },
      },
    ],
    ...(
      [
        ['auth.resourceServer.dpop.mode', 'sometimes'],
        ['auth.resourceServer.dpop.algorithms', { algorithms: ['HS256'] }],
        ['auth.resourceServer.dpop.algorithms', { algorithms: ['none'] }],
        ['auth.resourceServer.dpop.proofWindowSeconds', { proofWindowSeconds: 301 }],
        ['auth.resourceServer.dpop.nonce.secret', { nonce: { secret: 'short' } }],
        [
          'auth.resourceServer.dpop.nonce.rotationSeconds',
          { nonce: { secret: 'x'.repeat(32), rotationSeconds: 0 } },
        ],
        ['auth.resourceServer.dpop.replayCache', { replayCache: {} }],
      ] as const
    ).map(([option, dpop]): [string, object] => [
      option,
      { resourceServer: { issuer: 'https://a/', dpop } },
    ]),
  ])('refuses a bad %s at startup, naming it', (option, auth) => {
    expect(() => resolveAuthOptions(auth as never)).toThrow(InvalidModuleOptionsError);
    expect(() => resolveAuthOptions(auth as never)).toThrow(`"${option}"`);
  });

  it('allows DPoP by default: ES256, RS256, PS256 and EdDSA proofs within 60 s, no nonces', () => {
    const dpop = resolveAuthOptions({ resourceServer: { issuer: 'https://a/' } }).resourceServer
      ?.dpop;
    expect(dpop).toEqual({
      mode: 'allowed',
      algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      proofWindowSeconds: 60,
      nonce: undefined,
      replayCache: undefined,
      maxReplayEntries: 200_000,
      maxReplayEntriesPerSubject: 20_000,
    });
    expect(
      resolveAuthOptions({ resourceServer: { issuer: 'https://a/', dpop: 'required' } })
        .resourceServer?.dpop.mode,
    ).toBe('required');
  });

  it('derives the nonce key from the secret, never keeping the secret', () => {
    const secret = 's'.repeat(32);
    const nonce = resolveAuthOptions({
      resourceServer: { issuer: 'https://a/', dpop: { nonce: { secret } } },
    }).resourceServer?.dpop.nonce;
    expect(nonce?.rotationSeconds).toBe(300);
    expect(nonce?.key).toHaveLength(32);
    expect(nonce?.key.toString('utf8')).not.toContain(secret);
  });
});
