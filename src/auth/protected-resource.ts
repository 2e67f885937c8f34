import type { IncomingMessage } from 'node:http';
import type { McpHttpRefusal } from '../kit/errors/mcp-http-refusal.error';
import type { AuthOptions } from './auth.options';
import { bearerChallengeHeader } from './bearer-challenge.header';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

/** The RFC 9728 document (the members this module fills). @internal */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported: readonly string[];
}

function credentialed(req: IncomingMessage): boolean {
  const authorization = req.headers.authorization;
  return typeof authorization === 'string' && /^bearer\s/i.test(authorization);
}

/**
 * This endpoint as an OAuth protected resource: its RFC 8707 identifier, the RFC 9728 metadata
 * (at the path-suffixed well-known URL and the root form) and the HTTP headers of a refusal (a
 * Bearer challenge naming the metadata, `Retry-After`).
 * @internal
 */
export class ProtectedResource {
  constructor(
    private readonly options: AuthOptions,
    private readonly endpoint: string,
    private readonly declaredScopes: () => readonly string[],
  ) {}

  /** The well-known paths the metadata is served at: path-suffixed first, then the root form. */
  get metadataPaths(): readonly string[] {
    if (!this.options.servesMetadata) return [];
    const path = this.options.resource?.pathname.replace(/\/+$/, '') ?? this.endpoint;
    return path === '' || path === '/' ? [WELL_KNOWN] : [`${WELL_KNOWN}${path}`, WELL_KNOWN];
  }

  /** The resource URL: the configured one, or the endpoint at the request's host. */
  resourceOf(req: IncomingMessage): URL | undefined {
    if (this.options.resource) return this.options.resource;
    const host = req.headers.host;
    if (typeof host !== 'string' || !/^[A-Za-z0-9.\-[\]:]+$/.test(host)) return undefined;
    try {
      return new URL(`${LOOPBACK.test(host) ? 'http' : 'https'}://${host}${this.endpoint}`);
    } catch {
      return undefined;
    }
  }

  /** The metadata URL of a challenge, when the metadata is served. */
  metadataUrlOf(req: IncomingMessage): string | undefined {
    if (!this.options.servesMetadata) return undefined;
    const resource = this.resourceOf(req);
    if (!resource) return undefined;
    const path = resource.pathname.replace(/\/+$/, '');
    return `${resource.origin}${WELL_KNOWN}${path === '/' ? '' : path}`;
  }

  /** The document, for a request to one of {@link metadataPaths}. */
  metadataOf(req: IncomingMessage): ProtectedResourceMetadata | undefined {
    const resource = this.resourceOf(req);
    if (!resource) return undefined;
    const scopes =
      this.options.scopesSupported.length > 0
        ? this.options.scopesSupported
        : this.declaredScopes();
    return {
      resource: resource.href,
      authorization_servers: this.options.authorizationServers,
      ...(scopes.length > 0 && { scopes_supported: scopes }),
      bearer_methods_supported: ['header'],
    };
  }

  /** The headers a refusal adds to its JSON-RPC answer. */
  headersOf(refusal: McpHttpRefusal, req: IncomingMessage): Record<string, string> {
    const headers: Record<string, string> = {};
    if (refusal.challenge)
      headers['www-authenticate'] = bearerChallengeHeader(
        refusal.challenge,
        credentialed(req),
        this.metadataUrlOf(req),
      );
    if (refusal.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(refusal.retryAfterSeconds);
    return headers;
  }
}
