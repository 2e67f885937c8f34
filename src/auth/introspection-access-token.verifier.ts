import type { AuthInfo } from '@modelcontextprotocol/server';
import { sha256Base64Url } from '../kit/sha256';
import { authInfoOf } from './access-token-claims';
import type { AccessTokenVerifier } from './access-token.verifier';
import type { ResourceServerOptions } from './auth.options';
import { TokenRejectedError } from './token-rejected.error';

const TIMEOUT_MS = 5_000;
const MAX_BYTES = 64 * 1024;

interface Cached {
  readonly claims: Record<string, unknown>;
  readonly until: number;
}

/**
 * Verifies opaque tokens at the authorization server's RFC 7662 introspection endpoint (HTTP
 * Basic client authentication), then checks what the answer says: `active`, `iss`, `aud` (this
 * resource), `exp`. Answers are cached by the token's SHA-256 (never the token itself) for
 * `cacheTtlMs`, never past the token's expiry, at most `maxCacheEntries` of them (the oldest
 * dropped first); an inactive token is not cached, so a retry is asked again.
 * @internal
 */
export class IntrospectionAccessTokenVerifier implements AccessTokenVerifier {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly options: ResourceServerOptions) {}

  async verify(token: string, resource: URL): Promise<AuthInfo> {
    const key = sha256Base64Url(token);
    const now = Date.now();
    let cached = this.cache.get(key);
    if (cached && cached.until <= now) {
      this.cache.delete(key);
      cached = undefined;
    }
    const claims = cached?.claims ?? (await this.introspect(token));
    this.check(claims, resource, now);
    if (!cached) this.remember(key, claims, now);
    return authInfoOf(token, claims, resource);
  }

  private check(claims: Record<string, unknown>, resource: URL, now: number): void {
    if (claims.active !== true) throw new TokenRejectedError('The access token is not active');
    if (claims.iss !== undefined && claims.iss !== this.options.issuer)
      throw new TokenRejectedError('The access token was issued by another authorization server');
    const skewMs = this.options.clockToleranceSeconds * 1000;
    if (typeof claims.exp !== 'number' || claims.exp * 1000 + skewMs <= now)
      throw new TokenRejectedError('The access token expired');
    const audiences = this.options.audiences.length > 0 ? this.options.audiences : [resource.href];
    const comparable = (value: string) => value.replace(/\/+$/, '');
    const accepted = new Set(audiences.map(comparable));
    const aud = claims.aud;
    const given = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (given.some((entry) => typeof entry === 'string' && accepted.has(comparable(entry)))) return;
    if (aud === undefined && this.options.acceptTokensWithoutAudience) return;
    throw new TokenRejectedError('The access token was not issued for this resource');
  }

  private remember(key: string, claims: Record<string, unknown>, now: number): void {
    const introspection = this.options.introspection;
    if (!introspection || introspection.cacheTtlMs === 0) return;
    const until = Math.min(now + introspection.cacheTtlMs, (claims.exp as number) * 1000);
    while (this.cache.size >= introspection.maxCacheEntries) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
    this.cache.set(key, { claims, until });
  }

  private async introspect(token: string): Promise<Record<string, unknown>> {
    const introspection = this.options.introspection;
    if (!introspection) throw new TokenRejectedError('The access token cannot be verified');
    const basic = Buffer.from(
      `${encodeURIComponent(introspection.clientId)}:${encodeURIComponent(introspection.clientSecret)}`,
    ).toString('base64');
    let text: string;
    try {
      const response = await fetch(introspection.endpoint, {
        method: 'POST',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    } catch {
      throw new TokenRejectedError(
        'The authorization server could not be asked about the token',
        true,
      );
    }
    if (text.length > MAX_BYTES) throw new TokenRejectedError('The access token is not active');
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw new TokenRejectedError('The authorization server answered the introspection badly', true);
  }
}
