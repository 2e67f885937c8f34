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
