import { Logger } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { IncomingMessage } from 'node:http';
import {
  authorizationUnavailableRefusal,
  unauthorizedRefusal,
  type McpHttpRefusal,
} from '../kit/errors/mcp-http-refusal.error';
import { OccasionalWarning } from '../kit/occasional-warning';
import type { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';
import { boundKeyOf } from './access-token-claims';
import type { AccessTokenVerifier } from './access-token.verifier';
import type { AuthOptions } from './auth.options';
import { DpopAuthentication } from './dpop-authentication';
import { IntrospectionAccessTokenVerifier } from './introspection-access-token.verifier';
import { JwtAccessTokenVerifier } from './jwt-access-token.verifier';
import type { ProtectedResource } from './protected-resource';
import { TokenRejectedError } from './token-rejected.error';

/** `Bearer` or `DPoP`, spaces, an RFC 6750 `b64token`. */
const CREDENTIAL = /^(bearer|dpop)[ \t]+([A-Za-z0-9\-._~+/]+=*)$/i;
/** Longest token read; a longer one is refused before any verification. */
const MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * What authenticating a request found: its principal (none for an anonymous one), or a refusal.
 * @internal
 */
export type Authentication =
  | {
      readonly kind: 'principal';
      readonly auth: AuthInfo | undefined;
      /** Headers for the answer (a fresh `DPoP-Nonce`). */
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'refused'; readonly refusal: McpHttpRefusal };

/**
 * The built-in OAuth 2.1 resource server (`auth.resourceServer`): every MCP request's access
 * token is verified before any guard runs (a JWT against the issuer's keys, or an opaque token by
 * introspection); a bad one is refused with 401 `invalid_token` and a client-safe description, the
 * reason logged at debug level without the token. With DPoP (`dpop`, RFC 9449) a token bound to a
 * key is accepted only with the `DPoP` scheme and a valid proof of that key
 * ({@link DpopAuthentication}); `required` accepts nothing else. Without the option nothing is
 * checked here.
 * @internal
 */
export class ResourceServer {
  private readonly logger = new Logger('McpModule');
  private readonly verifier: AccessTokenVerifier | undefined;
  private readonly dpop: DpopAuthentication | undefined;
  /** While the authorization server is down every request would log it: once per 30 s, counted. */
  private readonly unavailable = new OccasionalWarning((message) => this.logger.warn(message));

  constructor(
    private readonly options: AuthOptions,
    private readonly resource: ProtectedResource,
    replayCache: () => ConsumedStateStore = () => {
      throw new Error('No DPoP replay cache');
    },
  ) {
    const server = options.resourceServer;
    this.verifier = !server
      ? undefined
      : server.introspection
        ? new IntrospectionAccessTokenVerifier(server)
        : new JwtAccessTokenVerifier(server);
    this.dpop =
      server && server.dpop.mode !== 'off'
        ? new DpopAuthentication(server.dpop, replayCache)
        : undefined;
    if (server && !server.requireToken)
      this.logger.warn(
        'auth.resourceServer.requireToken is false: requests without a bearer token are served ' +
          'anonymously (an insecure choice; see docs/authorization.md)',
      );
  }

  get enabled(): boolean {
    return this.verifier !== undefined;
  }

  /** Whether proofs are checked, and a replay cache is needed. */
  get verifiesDpop(): boolean {
    return this.dpop !== undefined;
  }

  /**
   * The request's principal, or its refusal. A request without a token is refused with the 401
   * challenge (`requireToken`, the default; naming the scopes of the operation it calls) unless
   * `anonymous.allowed` (a public operation).
   */
  async authenticate(
    req: IncomingMessage,
    anonymous: { readonly allowed: boolean; readonly scopes?: readonly string[] } = {
      allowed: false,
    },
  ): Promise<Authentication> {
    const verifier = this.verifier;
    const header = req.headers.authorization;
    if (!verifier) return { kind: 'principal', auth: undefined };
    if (header === undefined)
      return this.options.resourceServer?.requireToken && !anonymous.allowed
        ? {
            kind: 'refused',
            refusal: unauthorizedRefusal(
              anonymous.scopes?.length ? { scopes: anonymous.scopes } : {},
            ),
          }
        : { kind: 'principal', auth: undefined };
    const credential =
      header.length <= MAX_TOKEN_LENGTH ? CREDENTIAL.exec(header.trim()) : undefined;
    const scheme = credential?.[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
    if (!credential || (scheme === 'DPoP' && !this.dpop))
      return this.refused(
        new TokenRejectedError(
          this.dpop
            ? 'The Authorization header is not a Bearer or DPoP token'
            : 'The Authorization header is not a Bearer token',
        ),
        scheme,
      );
    const token = credential[2];
    if (scheme === 'Bearer' && this.options.resourceServer?.dpop.mode === 'required')
      return this.refused(
        new TokenRejectedError('The access token must be sent with the DPoP scheme and a proof'),
        'DPoP',
      );
    const resource = this.resource.resourceOf(req);
    if (!resource) return this.refused(new TokenRejectedError('The request names no host'), scheme);
    try {
      if (scheme === 'DPoP' && this.dpop)
        return await this.dpop.authenticate(req, token, resource, verifier);
      const auth = await verifier.verify(token, resource);
      // RFC 9449 §7.2: a bound token sent as a bearer token is what a thief would send.
      if (this.dpop && boundKeyOf(auth) !== undefined)
        throw new TokenRejectedError(
          'The access token is bound to a DPoP key: send it with the DPoP scheme and a proof',
        );
      return { kind: 'principal', auth };
    } catch (error) {
      if (error instanceof TokenRejectedError && error.unavailable) {
        this.unavailable.report(`MCP request refused with 503: ${error.reason}`);
        return { kind: 'refused', refusal: authorizationUnavailableRefusal() };
      }
      if (error instanceof TokenRejectedError) return this.refused(error, scheme);
      this.logger.error(
        'Verifying an access token failed',
        error instanceof Error ? error.stack : String(error),
      );
      return this.refused(new TokenRejectedError('The access token could not be verified'), scheme);
    }
  }

  private refused(rejection: TokenRejectedError, scheme: 'Bearer' | 'DPoP'): Authentication {
    this.logger.debug(`MCP request refused: ${rejection.reason}`);
    const nonce = scheme === 'DPoP' ? this.dpop?.nonces?.current() : undefined;
    return {
      kind: 'refused',
      refusal: unauthorizedRefusal({
        error: rejection.error,
        description: rejection.reason,
        scheme,
        ...(nonce !== undefined && { dpopNonce: nonce }),
      }),
    };
  }
}
