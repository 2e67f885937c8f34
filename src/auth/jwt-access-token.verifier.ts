import { Logger } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { authInfoOf } from './access-token-claims';
import type { AccessTokenVerifier } from './access-token.verifier';
import type { ResourceServerOptions } from './auth.options';
import { discoverJwksUri } from './authorization-server-metadata';
import { TokenRejectedError } from './token-rejected.error';

/** A failure of `jose` as a client-safe reason (never the token, never a key). */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'The access token was not issued for this resource';
    if (error.claim === 'iss') return 'The access token was issued by another authorization server';
    if (error.claim === 'nbf') return 'The access token is not valid yet';
    return `The access token's ${error.claim} claim is not accepted`;
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The access token is signed by an unknown key';
  if (error instanceof errors.JOSEAlgNotAllowed)
    return 'The access token is signed with an algorithm not accepted';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return 'The access token signature is not valid';
  return 'The access token is malformed';
}

/** What `jose` throws when the token itself is refused; anything else is not about the token. */
const VERDICTS_ON_THE_TOKEN = [
  errors.JWTExpired,
  errors.JWTClaimValidationFailed,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
];

/**
 * Whether `jose` could not read the key set at all: a timeout, a key set that is not one, an HTTP
 * error or HTML from the JWKS endpoint (a plain `JOSEError`), a failed fetch (connection refused,
 * DNS) — none of them a verdict on the token, which then gets a 503, never a 401 "malformed".
 */
function keysUnavailable(error: unknown): boolean {
  return !VERDICTS_ON_THE_TOKEN.some((verdict) => error instanceof verdict);
}

/** How long a failed discovery of the key set is answered 503 before it is tried again. */
const DISCOVERY_RETRY_MS = 10_000;

/**
 * How long a key set that could not be fetched is answered 503 before it is fetched again (the
 * `Retry-After` the 503 names).
 */
const KEY_SET_RETRY_MS = 5_000;

/** What the key set's getter throws because of the token (the key it names), not the fetch. */
const KEY_LOOKUP_VERDICTS = [
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JOSENotSupported,
];

function keySetUnreadable(): TokenRejectedError {
  return new TokenRejectedError('The authorization server keys could not be read', true);
}

/**
 * Verifies JWT access tokens with `jose` against the issuer's JWKS: signature (an allow-list of
 * asymmetric algorithms), `iss`, `aud` (this resource, RFC 8707), `exp` (required) and `nbf` with
 * bounded clock skew. The key set is fetched once and cached; a token signed by a key id it does
 * not know makes it fetch again (at most every 30 s), so a rotated key works at once.
 * @internal
 */
export class JwtAccessTokenVerifier implements AccessTokenVerifier {
  private readonly logger = new Logger('McpModule');
  private keys: Promise<JWTVerifyGetKey> | undefined;
  private warnedNoAudience = false;

  constructor(private readonly options: ResourceServerOptions) {}

  async verify(token: string, resource: URL): Promise<AuthInfo> {
    const keys = await this.keySet();
    const audiences = this.options.audiences.length > 0 ? this.options.audiences : [resource.href];
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        algorithms: [...this.options.algorithms],
        clockTolerance: this.options.clockToleranceSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (keysUnavailable(error)) throw keySetUnreadable();
      throw new TokenRejectedError(reasonOf(error));
    }
    this.checkAudience(payload.aud, audiences);
    return authInfoOf(token, payload, resource);
  }

  /** `aud` names one of `audiences` (a trailing slash aside), or is absent where that is tolerated. */
  private checkAudience(aud: unknown, audiences: readonly string[]): void {
    const comparable = (value: string) => value.replace(/\/+$/, '');
    const accepted = new Set(audiences.map(comparable));
    const given = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (given.some((entry) => typeof entry === 'string' && accepted.has(comparable(entry)))) return;
    if (aud === undefined && this.options.acceptTokensWithoutAudience) {
      if (!this.warnedNoAudience) {
        this.warnedNoAudience = true;
        this.logger.warn(
          'Accepted an access token without an "aud" claim (auth.resourceServer.acceptTokensWithoutAudience): ' +
            'its client did not send the RFC 8707 resource parameter, so the token is valid for any resource of the issuer. This warning is shown once.',
        );
      }
      return;
    }
    throw new TokenRejectedError('The access token was not issued for this resource');
  }

  /**
   * The issuer's key set, discovered once (every request waiting on the same discovery); a failed
   * discovery answers the requests of the next {@link DISCOVERY_RETRY_MS} with the same 503 before
   * it is tried again, so an issuer that is down is not asked once per request.
   */
  private keySet(): Promise<JWTVerifyGetKey> {
    if (this.keys) return this.keys;
    const keys = (async () => {
      const uri = this.options.jwksUri ?? (await discoverJwksUri(this.options.issuer));
      return withOutageBackoff(
        createRemoteJWKSet(new URL(uri), {
          timeoutDuration: 5_000,
          cooldownDuration: 30_000,
          cacheMaxAge: 10 * 60_000,
        }),
      );
    })();
    this.keys = keys;
    keys.catch(() => {
      setTimeout(() => {
        if (this.keys === keys) this.keys = undefined;
      }, DISCOVERY_RETRY_MS).unref();
    });
    return keys;
  }
}

/**
 * `remote` answering 503 at once for {@link KEY_SET_RETRY_MS} after a fetch of the key set failed
 * (an HTTP error, HTML, a timeout, a refused connection), instead of fetching again for every
 * request while the JWKS endpoint is down. Only a failure of the fetch starts the pause, never a
 * token that names a key the set does not have, so no token can pause everybody's.
 */
function withOutageBackoff(remote: JWTVerifyGetKey): JWTVerifyGetKey {
  let downUntil = 0;
  return async (header, token) => {
    if (Date.now() < downUntil) throw keySetUnreadable();
    try {
      return await remote(header, token);
    } catch (error) {
      if (!KEY_LOOKUP_VERDICTS.some((verdict) => error instanceof verdict))
        downUntil = Date.now() + KEY_SET_RETRY_MS;
      throw error;
    }
  };
}
