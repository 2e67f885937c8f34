import type { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';

/**
 * Opaque access tokens checked at the authorization server's RFC 7662 introspection endpoint.
 *
 * @publicApi
 */
export interface McpTokenIntrospectionOptions {
  /** The introspection endpoint (`introspection_endpoint` of the server's metadata). */
  endpoint: string;
  /** This resource server's client credentials at the authorization server (HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /** How long an answer is reused, in ms; never past the token's `exp`. Default 60,000. */
  cacheTtlMs?: number;
  /** Answers kept at most (least recently used dropped first). Default 10,000. */
  maxCacheEntries?: number;
}

/**
 * DPoP (RFC 9449) on the built-in resource server: access tokens bound to a key the client holds,
 * each request signed with a proof of that key. See `docs/authorization.md` ("DPoP").
 *
 * @publicApi
 */
export interface McpDpopOptions {
  /**
   * `allowed` (default): a DPoP-bound token must come with the `DPoP` scheme and a valid proof, a
   * plain bearer token still works; `required`: only DPoP-bound tokens with a proof; `off`: DPoP
   * is not supported (a bound token is then served as a bearer token, as by a resource server that
   * does not know DPoP).
   */
  mode?: 'off' | 'allowed' | 'required';
  /** Proof signature algorithms accepted. Default `['ES256', 'RS256', 'PS256', 'EdDSA']`; never `none` or HS*. */
  algorithms?: string[];
  /** A proof's `iat` is accepted this many seconds either side of now. Default 60, at most 300. */
  proofWindowSeconds?: number;
  /**
   * Server nonces (RFC 9449 §9): a proof must carry a recent `nonce` this server issued
   * (`DPoP-Nonce`), else it is refused with `use_dpop_nonce` and a fresh one. Nonces are derived
   * from `secret` (at least 32 bytes; give every instance of a fleet the same one, and never a key
   * of the keyring) and a time window of `rotationSeconds` (default 300, at most 3,600); the
   * current and the previous window are accepted, on every instance, with nothing shared.
   */
  nonce?: { secret: string | Uint8Array; rotationSeconds?: number };
  /**
   * Where each proof's `jti` is recorded so that it is accepted once. Default: Redis when the
   * module's `redis` option is set (one record for the whole fleet), else this process's memory.
   */
  replayCache?: ConsumedStateStore;
  /** Proofs remembered at once (per fleet on Redis); past it proofs are refused with -32000 until older ones expire. Default 200,000. */
  maxReplayEntries?: number;
  /** Proofs remembered at once for one token subject (client and subject). Default 20,000. */
  maxReplayEntriesPerSubject?: number;
}

/**
 * The built-in OAuth 2.1 resource server: bearer tokens on the MCP endpoint verified before any
 * guard runs, the principal on `req.auth` (the SDK's `AuthInfo`). See `docs/authorization.md`.
 *
 * @publicApi
 */
export interface McpResourceServerOptions {
  /** The authorization server's issuer identifier; tokens must carry it as `iss`. */
  issuer: string;
  /**
   * Audiences accepted in `aud` (RFC 8707: this resource). Default: the `resource` URL.
   */
  audience?: string | string[];
  /** The JWKS URL. Default: `jwks_uri` of the issuer's RFC 8414 or OpenID metadata. */
  jwksUri?: string;
  /** Signature algorithms accepted. Default `['RS256', 'PS256', 'ES256', 'EdDSA']`. */
  algorithms?: string[];
  /** Clock skew tolerated on `exp` and `nbf`, in seconds (at most 300). Default 30. */
  clockToleranceSeconds?: number;
  /** Verify opaque tokens by introspection instead of as JWTs. */
  introspection?: McpTokenIntrospectionOptions;
  /**
   * Accept a JWT without an `aud` claim, as issued to clients that omit the RFC 8707 `resource`
   * parameter. Off by default: such a token is meant for any resource of the issuer. A warning is
   * logged once when one is accepted.
   */
  acceptTokensWithoutAudience?: boolean;
  /**
   * Answers every MCP request without a bearer token with the 401 challenge naming the resource
   * metadata (before any guard), on every method and both protocol eras — except the operations
   * marked `public: true` (with the lists and discovery, which then show such a caller the public
   * operations only). Default `true`. `false` is the insecure choice: requests without a token go
   * on anonymously to your guards (logged once at startup).
   */
  requireToken?: boolean;
  /**
   * DPoP-bound access tokens (RFC 9449): a mode, or the full options. Default `'allowed'`: a bound
   * token must come with a valid proof; plain bearer tokens still work.
   */
  dpop?: 'off' | 'allowed' | 'required' | McpDpopOptions;
}

/**
 * Authorization of the MCP endpoint: list visibility, the RFC 9728 metadata and challenges, and
 * the optional built-in resource server.
 *
 * @publicApi
 */
export interface McpAuthOptions {
  /**
   * The endpoint's public URL as clients type it (`https://api.example.com/mcp`): the RFC 8707
   * resource identifier, the `resource` of the metadata and the default token audience. Default:
   * from the request's `Host` (`http://` for loopback hosts, `https://` otherwise).
   */
  resource?: string;
  /** `authorization_servers` of the metadata. Default: the resource server's `issuer`. */
  authorizationServers?: string[];
  /** `scopes_supported` of the metadata. Default: every scope an operation declares. */
  scopesSupported?: string[];
  /**
   * Who sees an operation in `tools/list`, `prompts/list`, `resources/list` and
   * `resources/templates/list`: `caller` (default) lists what the caller's guards and scopes let
   * it call, and a guard's refusal of a call answers as for an unknown operation; `public` lists
   * everything, and a refusal answers -32003.
   */
  lists?: 'caller' | 'public';
  /** Verify bearer tokens with the built-in resource server. */
  resourceServer?: McpResourceServerOptions;
}
