import { Logger } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { IncomingMessage } from 'node:http';
import {
  authorizationUnavailableRefusal,
  unauthorizedRefusal,
  type McpHttpRefusal,
} from '../kit/errors/mcp-http-refusal.error';
import { OccasionalWarning } from '../kit/occasional-warning';
import type { AccessTokenVerifier } from './access-token.verifier';
import type { AuthOptions } from './auth.options';
import { IntrospectionAccessTokenVerifier } from './introspection-access-token.verifier';
import { JwtAccessTokenVerifier } from './jwt-access-token.verifier';
import type { ProtectedResource } from './protected-resource';
import { TokenRejectedError } from './token-rejected.error';

/** `Bearer`, spaces, an RFC 6750 `b64token`. */
const BEARER = /^bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)$/i;
/** Longest token read; a longer one is refused before any verification. */
const MAX_TOKEN_LENGTH = 16 * 1024;

/**
 * What authenticating a request found: its principal (none for an anonymous one), or a refusal.
 * @internal
 */
export type Authentication =
  | { readonly kind: 'principal'; readonly auth: AuthInfo | undefined }
  | { readonly kind: 'refused'; readonly refusal: McpHttpRefusal };

/**
 * The built-in OAuth 2.1 resource server (`auth.resourceServer`): every MCP request's bearer
 * token is verified before any guard runs (a JWT against the issuer's keys, or an opaque token by
 * introspection); a bad one is refused with 401 `invalid_token` and a client-safe description, the
 * reason logged at debug level without the token. Without the option nothing is checked here.
 * @internal
 */
export class ResourceServer {
  private readonly logger = new Logger('McpModule');
  private readonly verifier: AccessTokenVerifier | undefined;
  /** While the authorization server is down every request would log it: once per 30 s, counted. */
  private readonly unavailable = new OccasionalWarning((message) => this.logger.warn(message));

  constructor(
    private readonly options: AuthOptions,
    private readonly resource: ProtectedResource,
  ) {
    const server = options.resourceServer;
    this.verifier = !server
      ? undefined
      : server.introspection
        ? new IntrospectionAccessTokenVerifier(server)
        : new JwtAccessTokenVerifier(server);
    if (server && !server.requireToken)
      this.logger.warn(
        'auth.resourceServer.requireToken is false: requests without a bearer token are served ' +
          'anonymously (an insecure choice; see docs/authorization.md)',
      );
  }

  get enabled(): boolean {
    return this.verifier !== undefined;
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
    const token = header.length <= MAX_TOKEN_LENGTH ? BEARER.exec(header.trim())?.[1] : undefined;
    if (token === undefined) return this.refused('The Authorization header is not a Bearer token');
    const resource = this.resource.resourceOf(req);
    if (!resource) return this.refused('The request names no host');
    try {
      return { kind: 'principal', auth: await verifier.verify(token, resource) };
    } catch (error) {
      if (error instanceof TokenRejectedError && error.unavailable) {
        this.unavailable.report(`MCP request refused with 503: ${error.reason}`);
        return { kind: 'refused', refusal: authorizationUnavailableRefusal() };
      }
      if (error instanceof TokenRejectedError) return this.refused(error.reason);
      this.logger.error(
        'Verifying an access token failed',
        error instanceof Error ? error.stack : String(error),
      );
      return this.refused('The access token could not be verified');
    }
  }

  private refused(reason: string): Authentication {
    this.logger.debug(`MCP request refused: ${reason}`);
    return {
      kind: 'refused',
      refusal: unauthorizedRefusal({ error: 'invalid_token', description: reason }),
    };
  }
}
