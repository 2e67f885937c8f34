import type { IncomingMessage } from 'node:http';
import type { BearerChallenge, McpHttpRefusal } from '../kit/errors/mcp-http-refusal.error';
import type { AuthOptions } from './auth.options';
import { bearerChallengeHeader } from './bearer-challenge.header';
import { dpopChallengeHeader } from './dpop-challenge.header';
import type { DpopOptions } from './dpop.options';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;
/** Host headers whose resource URL is remembered at once. */
const MAX_REMEMBERED_HOSTS = 64;

/** The RFC 9728 document (the members this module fills). @internal */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported: readonly string[];
  /** RFC 9449 §5.1: the proof algorithms accepted, when DPoP is. */
  readonly dpop_signing_alg_values_supported?: readonly string[];
  /** RFC 9449 §5.1: set when only DPoP-bound tokens are accepted. */
  readonly dpop_bound_access_tokens_required?: boolean;
}

/** The scheme of the request's credential, if it has one this module reads. */
function presentedScheme(req: IncomingMessage): 'Bearer' | 'DPoP' | undefined {
  const authorization = req.headers.authorization;
  if (typeof authorization !== 'string') return undefined;
  if (/^bearer\s/i.test(authorization)) return 'Bearer';
  if (/^dpop\s/i.test(authorization)) return 'DPoP';
  return undefined;
}

/**
 * This endpoint as an OAuth protected resource: its RFC 8707 identifier, the RFC 9728 metadata
 * (at the path-suffixed well-known URL and the root form) and the HTTP headers of a refusal (a
 * Bearer challenge naming the metadata, `Retry-After`).
 * @internal
 */
export class ProtectedResource {
  /** The resource URL per Host header seen lately (`null`: not a host a URL can name). */
  private readonly resources = new Map<string, URL | null>();

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
    if (typeof host !== 'string') return undefined;
    const known = this.resources.get(host);
    if (known !== undefined) return known ?? undefined;
    let resource: URL | null = null;
    if (/^[A-Za-z0-9.\-[\]:]+$/.test(host)) {
      try {
        resource = new URL(`${LOOPBACK.test(host) ? 'http' : 'https'}://${host}${this.endpoint}`);
      } catch {
        resource = null;
      }
    }
    // Hosts are the client's to name: a few are remembered, not every one ever sent.
    if (this.resources.size >= MAX_REMEMBERED_HOSTS) this.resources.clear();
    this.resources.set(host, resource);
    return resource ?? undefined;
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
      ...(this.dpop && { dpop_signing_alg_values_supported: this.dpop.algorithms }),
      ...(this.dpop?.mode === 'required' && { dpop_bound_access_tokens_required: true }),
    };
  }

  /** DPoP as the built-in resource server verifies it, when it does. */
  private get dpop(): DpopOptions | undefined {
    const dpop = this.options.resourceServer?.dpop;
    return dpop && dpop.mode !== 'off' ? dpop : undefined;
  }

  /**
   * The challenges of a refusal: `Bearer`, then `DPoP` when DPoP is accepted too (in one header,
   * comma-separated, RFC 9110 §11.6.1), or `DPoP` alone when it is required. The error goes on
   * the challenge of the scheme the request used (or the one the refusal names).
   */
  private challengeOf(challenge: BearerChallenge, req: IncomingMessage): string {
    const presented = presentedScheme(req);
    const credentialed = presented !== undefined;
    const metadataUrl = this.metadataUrlOf(req);
    const dpop = this.dpop;
    if (!dpop) return bearerChallengeHeader(challenge, credentialed, metadataUrl);
    const dpopChallenge = (withError: boolean) =>
      dpopChallengeHeader(challenge, credentialed, metadataUrl, dpop.algorithms, withError);
    if (dpop.mode === 'required') return dpopChallenge(true);
    const onDpop = (challenge.scheme ?? presented) === 'DPoP';
    return `${bearerChallengeHeader(challenge, credentialed, metadataUrl, !onDpop)}, ${dpopChallenge(onDpop)}`;
  }

  /** The headers a refusal adds to its JSON-RPC answer. */
  headersOf(refusal: McpHttpRefusal, req: IncomingMessage): Record<string, string> {
    const headers: Record<string, string> = {};
    if (refusal.challenge) {
      headers['www-authenticate'] = this.challengeOf(refusal.challenge, req);
      if (refusal.challenge.dpopNonce !== undefined)
        headers['dpop-nonce'] = refusal.challenge.dpopNonce;
    }
    if (refusal.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(refusal.retryAfterSeconds);
    Object.assign(headers, refusal.headers);
    return headers;
  }
}
