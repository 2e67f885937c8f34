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
  ])('refuses a bad %s at startup, naming it', (option, auth) => {
    expect(() => resolveAuthOptions(auth as never)).toThrow(InvalidModuleOptionsError);
    expect(() => resolveAuthOptions(auth as never)).toThrow(`"${option}"`);
  });
});
