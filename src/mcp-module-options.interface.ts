import type { CacheHint } from '@modelcontextprotocol/server';
import type { McpAuthOptions } from './auth/mcp-auth-options.interface';
import type { McpCacheableMethod } from './wire/protocol/server.options';
import type { SecretFieldPolicy } from './input/secret-field.policy';
import type { KeyringConfig } from './keyring/keyring-fingerprint';
import type { McpRedisOptions } from './redis/mcp-redis-options.interface';
import type { McpHttpOptions } from './wire/http/mcp-http-options.interface';
import type { McpRequestStateOptions } from './request-state/sealing/mcp-request-state-options.interface';
import type { McpIdentityOptions } from './auth/identity/mcp-identity-options.interface';
import type { McpExtensionOptionsOf } from './options/mcp-extension';
import type { MCP_EXTENSIONS } from './mcp.extensions';

/**
 * The core's options: everything but the extensions' own keys, which each extension brings
 * (`tasks`, `sessions`, `skills`: see {@link McpModuleOptions}).
 * @publicApi
 */
export interface McpCoreModuleOptions {
  /** HTTP path of the MCP endpoint. Default `/mcp`. */
  endpoint?: string;
  /**
   * Authorization: which operations lists show (default: what the caller may call), the OAuth
   * protected-resource metadata and challenges, and the built-in bearer-token resource server.
   * See `docs/authorization.md`.
   */
  auth?: McpAuthOptions;
  /**
   * What the server calls itself (the MCP `Implementation`, in every result's `_meta` and in
   * `initialize`). Default `{ name: 'nestjs-mcp', version: <package version> }`.
   */
  serverInfo?: {
    name: string;
    version: string;
    title?: string;
    /** What the server does, in a sentence (the server card needs it, at most 100 characters). */
    description?: string;
    websiteUrl?: string;
  };
  /**
   * Experimental: serve the server card of the draft SEP-2127 at `GET <endpoint>/server-card`
   * (`application/mcp-server-card+json`, readable from any origin, cached for an hour): the
   * name, version, title, description and website of `serverInfo` (so `serverInfo.name` must be
   * reverse-DNS with one slash, `com.example/orders`, and `description` is required), the
   * endpoint's URL and the protocol versions it serves. Default `false`. See `docs/server-card.md`.
   */
  serverCard?: boolean;
  /** Free-text instructions advertised to clients in `server/discover`. */
  instructions?: string;
  /** What the HTTP endpoint admits and how it reads bodies and streams. */
  http?: McpHttpOptions;
  /** Cache hints (`ttlMs`, `cacheScope`) for cacheable results. Default `{ ttlMs: 0, cacheScope: 'private' }` everywhere. */
  cacheHints?: Partial<Record<McpCacheableMethod, CacheHint>>;
  /**
   * Bounds on `subscriptions/listen` streams, which stay open until the client goes away. A listen
   * request over a bound is refused before its stream opens (see `docs/errors.md`).
   */
  listen?: {
    /** Listen streams open at once in this process; more get HTTP 503. Default 1,000. */
    maxStreams?: number;
    /**
     * Listen streams open at once for one caller; more get HTTP 429. The caller is a digest of the
     * `Authorization` header when there is one, else the client address (`req.ip`, so behind a
     * proxy set the framework's trust-proxy option). Default 10 (`maxStreams` if lower); at most `maxStreams`.
     */
    maxStreamsPerCaller?: number;
    /** Resource URIs one stream may follow (`resourceSubscriptions`). Default 100. */
    maxResourceSubscriptions?: number;
    /** Longest resource URI a stream may follow, in characters. Default 2,048. */
    maxUriLength?: number;
  };
  /**
   * How the module's OpenTelemetry spans are tied together (see `docs/operations.md`). Tracing itself
   * is on when the app registers a tracer provider.
   */
  tracing?: {
    /**
     * What parents the span of a flow's later round. `'client'` (default, as the MCP conventions
     * say): the trace context the client sent in `_meta` or the `traceparent` header, with the flow's
     * first round linked — a round without any continues the first round's trace. `'first-round'`:
     * always the flow's first round, so every round of a flow is in one trace, the client's context
     * linked instead.
     */
    roundParent?: 'client' | 'first-round';
  };
  /**
   * How a rate limit's refusal (`McpThrottlerGuard`, `@nestjs/throttler`'s guard, any guard's 429)
   * is answered. `errors: '-32029'` (default): HTTP 429, `Retry-After`, -32029 `Too many requests`
   * with `data.retryAfterMs`. `errors: 'sep-3304'`: as the draft SEP-3304 says it — HTTP 429,
   * `Retry-After`, -32023 `Rate limited` with `data.retryAfterMs`, and `data.limit` /
   * `data.remaining` with the `RateLimit-Limit` / `RateLimit-Remaining` headers when the limiter
   * says them (`McpThrottlerGuard` does). The default changes when the SEP is accepted. See
   * `docs/errors.md`.
   */
  rateLimits?: { errors?: '-32029' | 'sep-3304' };
  /** Framework-protected request state: its limits, single use, handles, and the ports that seal and record it. */
  requestState?: McpRequestStateOptions;
  /**
   * Keys for the default AES-256-GCM protector: the active key id and each key's material
   * (at least 32 bytes; bytes or base64). Without it an ephemeral key is generated, with a warning.
   */
  keyring?: KeyringConfig;
  /**
   * Lets an instance run with an ephemeral key when `NODE_ENV=production` and no `keyring` is
   * configured; without it such an app fails to start, since every instance would seal with its
   * own key and refuse the others' rounds. Outside production an ephemeral key is used with a
   * warning. Default `false`.
   */
  allowEphemeralKey?: boolean;
  /**
   * The Redis a fleet shares (a URL, or an ioredis client the app owns, plus a key prefix):
   * single-use states, state handles and tasks then live there unless `requestState.consumedStateStore`,
   * `requestState.stateHandleRepository` or `tasks.store` says otherwise, and task status notifications reach
   * every instance. Needs the optional peer dependency `ioredis`. Default none (everything in
   * memory). See `docs/redis.md`.
   */
  redis?: McpRedisOptions;
  /** Who the caller is: the authorization partition state is bound to and limits are shared by. */
  identity?: McpIdentityOptions;
  /** Validation of tool and prompt arguments. See `docs/pipeline.md`. */
  validation?: {
    /**
     * Validates tool and prompt arguments against what each operation advertises (its raw
     * `inputSchema` as JSON Schema, else its class-validator DTO) before the handler runs; invalid
     * arguments are refused with -32602 and `data.errors`. Turn it off for apps that validate
     * arguments themselves. Default `true`.
     */
    arguments?: boolean;
    /**
     * Fails startup, naming the method and the fix, when an operation's arguments cannot be
     * validated: a build that emitted no parameter types (`emitDecoratorMetadata` off, an
     * esbuild/SWC build without decorator metadata), or a DTO without class-validator rules.
     * Otherwise each is a warning. Default `true` when `NODE_ENV=production`, else `false`.
     */
    failOnGap?: boolean;
  };
  /** The list methods (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`). */
  lists?: {
    /**
     * Entries per page; clients follow `nextCursor` for the rest (the official client walks up to
     * 64 pages by default). Default 100, at most 10,000. See `docs/performance.md`.
     */
    pageSize?: number;
  };
  /**
   * How an instance drains when the app shuts down (`app.enableShutdownHooks()` and SIGTERM, or
   * `app.close()`): readiness goes down at once (`McpDrainHealthIndicator`), new requests are
   * still served for `drainDelayMs` (each answer closing its connection); then the instance takes
   * no new work — it stops listening (a new connection is refused) and answers a request on a
   * connection already open with HTTP 503 and the retryable -32000, running nothing — while the
   * requests in flight finish, all within `graceMs`, after which the connections still open are
   * cut. See `docs/operations.md` ("Kubernetes").
   */
  shutdown?: {
    /** Longest the drain takes, from the signal until the HTTP server closes. Default 10,000 ms; at most 600,000. */
    graceMs?: number;
    /**
     * How long new requests are still served after the signal, while the balancer notices readiness
     * is down; after it, new work is refused. Default 0; at most `graceMs`.
     */
    drainDelayMs?: number;
  };
  /** Safety policy of elicitations. */
  elicitation?: {
    /** Decides which form fields ask for secrets. Default: the reviewed concept policy (passwords, keys and tokens, payment cards, verification codes). */
    secretPolicy?: SecretFieldPolicy;
    /** Allows `http://localhost` URL elicitations. Default: `NODE_ENV === 'development'`. */
    development?: boolean;
  };
}

export type { McpCacheableMethod };

/**
 * Options for `McpModule.forRoot()` / `forRootAsync()`: the core's ({@link McpCoreModuleOptions})
 * and one key per extension the module composes (`src/mcp.extensions.ts`): `tasks`
 * (docs/tasks.md), `sessions` (2025-era clients, docs/clients.md) and `skills` (docs/skills.md).
 * @publicApi
 */
export type McpModuleOptions = McpCoreModuleOptions & McpExtensionOptionsOf<typeof MCP_EXTENSIONS>;
