import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';

function scopesIn(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(value))
    return value.filter((scope): scope is string => typeof scope === 'string');
  return undefined;
}

/**
 * The OAuth scopes the caller's credential grants, or `undefined` when the request carries no
 * principal at all (nobody signed in): `req.auth.scopes` (the SDK's `AuthInfo`, set by the
 * built-in resource server or bearer-auth middleware), else `scopes`, `scope` or `scp` of
 * `req.user` (a passport JWT strategy's payload: an array or a space-separated string). A
 * principal without any of them has no scopes.
 * @internal
 */
export function callerScopesOf(
  request: McpHttpRequest,
  raw: { auth?: unknown; user?: unknown } | undefined,
): readonly string[] | undefined {
  const auth = (request.auth ?? raw?.auth) as { scopes?: unknown } | undefined;
  if (auth !== undefined && auth !== null) return scopesIn(auth.scopes) ?? [];
  const user = (request.user ?? raw?.user) as Record<string, unknown> | undefined;
  if (user === undefined || user === null) return undefined;
  if (typeof user !== 'object') return [];
  return scopesIn(user.scopes) ?? scopesIn(user.scope) ?? scopesIn(user.scp) ?? [];
}
