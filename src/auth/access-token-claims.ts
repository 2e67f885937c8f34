import type { AuthInfo } from '@modelcontextprotocol/server';

function scopesOf(claims: Record<string, unknown>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === 'string') return scope.split(' ').filter((entry) => entry !== '');
  if (Array.isArray(scp)) return scp.filter((entry): entry is string => typeof entry === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((entry) => entry !== '');
  return [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The RFC 7638 thumbprint a token is bound to (`cnf.jkt`, RFC 9449 §6), if any. */
function jktOf(claims: Record<string, unknown>): string | undefined {
  const cnf = claims.cnf;
  if (cnf === null || typeof cnf !== 'object') return undefined;
  return text((cnf as { jkt?: unknown }).jkt);
}

/**
 * The DPoP key a verified token is bound to (its `extra.jkt`), or `undefined` for a bearer token.
 * @internal
 */
export function boundKeyOf(auth: AuthInfo): string | undefined {
  return text(auth.extra?.jkt);
}

/**
 * The SDK's `AuthInfo` of a verified token (JWT claims or an RFC 7662 answer): the client
 * (`client_id`, else `azp`, else `sub`), its scopes (`scope`, or `scp`), its expiry, the resource
 * it was accepted for, and `extra.sub` (what the default partition resolver keys callers by) with
 * the issuer, and `extra.jkt`, the DPoP key a bound token is bound to (`cnf.jkt`). The claims
 * themselves are not kept.
 * @internal
 */
export function authInfoOf(
  token: string,
  claims: Record<string, unknown>,
  resource: URL,
): AuthInfo {
  const sub = text(claims.sub);
  const jkt = jktOf(claims);
  return {
    token,
    clientId: text(claims.client_id) ?? text(claims.azp) ?? sub ?? 'unknown',
    scopes: scopesOf(claims),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    resource,
    extra: {
      ...(sub !== undefined && { sub }),
      iss: text(claims.iss),
      ...(jkt !== undefined && { jkt }),
    },
  };
}
