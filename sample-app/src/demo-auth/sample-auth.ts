import type { McpModuleOptions } from '../../../src/index';

/**
 * `SAMPLE_AUTH=oauth` makes the sample an OAuth 2.1 protected resource: bearer JWTs from
 * `OAUTH_ISSUER`, for the audience `OAUTH_AUDIENCE` (the endpoint's public URL; default: the URL the
 * request names in its `Host`), verified by the module's built-in resource server. A request
 * without a token is answered 401 with the challenge (the module's default, `requireToken`).
 * Anything else (the default) keeps the demo authentication.
 */
export const OAUTH_MODE = process.env.SAMPLE_AUTH === 'oauth';

/** The scope `transfer_funds` needs in OAuth mode, advertised in `scopes_supported`. */
export const PAYMENTS_SCOPE = 'payments:write';

/** `scopes` in OAuth mode only: demo callers carry no token to hold scopes. */
export function scopesInOAuthMode(...scopes: string[]): string[] | undefined {
  return OAUTH_MODE ? scopes : undefined;
}

/** The `auth` option of the mode. */
export function authFromEnv(): McpModuleOptions['auth'] {
  const mode = process.env.SAMPLE_AUTH;
  if (mode !== undefined && mode !== '' && mode !== 'demo' && mode !== 'oauth')
    throw new Error('SAMPLE_AUTH must be "demo" or "oauth"');
  if (!OAUTH_MODE) return undefined;
  const issuer = process.env.OAUTH_ISSUER;
  const audience = process.env.OAUTH_AUDIENCE || undefined;
  if (!issuer) throw new Error('SAMPLE_AUTH=oauth needs OAUTH_ISSUER (the authorization server)');
  return audience === undefined
    ? { resourceServer: { issuer } }
    : { resource: audience, resourceServer: { issuer, audience } };
}
