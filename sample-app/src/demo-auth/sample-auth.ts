import type { McpModuleOptions } from '../../../src/index';

type McpDpopOptions = Exclude<
  NonNullable<NonNullable<McpModuleOptions['auth']>['resourceServer']>['dpop'],
  string | undefined
>;

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

/**
 * `OAUTH_DPOP`: `allowed` (the module's default: DPoP-bound tokens need their proof, bearer tokens
 * still work), `required` (only DPoP-bound tokens, each request with a proof) or `off`.
 * `OAUTH_DPOP_NONCE_SECRET` (at least 32 bytes, the same on every instance) makes the server hand
 * out DPoP nonces. With `MCP_STORE=redis` the proofs' replay cache is on Redis, one for the fleet.
 */
function dpopFromEnv(): McpDpopOptions | undefined {
  const mode = process.env.OAUTH_DPOP || undefined;
  const nonceSecret = process.env.OAUTH_DPOP_NONCE_SECRET || undefined;
  if (mode !== undefined && mode !== 'off' && mode !== 'allowed' && mode !== 'required')
    throw new Error('OAUTH_DPOP must be "off", "allowed" or "required"');
  if (mode === undefined && nonceSecret === undefined) return undefined;
  // Never echo the secret.
  return { ...(mode && { mode }), ...(nonceSecret && { nonce: { secret: nonceSecret } }) };
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
  const dpop = dpopFromEnv();
  const resourceServer = {
    issuer,
    ...(audience !== undefined && { audience }),
    ...(dpop && { dpop }),
  };
  return audience === undefined ? { resourceServer } : { resource: audience, resourceServer };
}
