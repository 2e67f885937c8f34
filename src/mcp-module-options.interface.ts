import type { CacheHint } from '@modelcontextprotocol/server';
import type { McpAuthOptions } from './auth/mcp-auth-options.interface';
import type { McpCacheableMethod } from './protocol/server.options';
import type { SecretFieldPolicy } from './input/secret-field.policy';
import type { KeyringConfig } from './keyring/keyring-fingerprint';
import type { McpRedisOptions } from './redis/mcp-redis-options.interface';
import type { McpAuthorizationPartitionResolver } from './identity/authorization-partition.resolver';
import type { ConsumedStateStore } from './stores/one-time/consumed-state-store.interface';
import type { StateHandleRepository } from './stores/handles/state-handle-repository.interface';
import type { RequestStateProtector } from './state/request-state-protector.interface';
import type { TaskRunner } from './ext/tasks/runner/task-runner.interface';
import type { TaskStore } from './ext/tasks/store/task-store.interface';
import type { SessionStore } from './ext/sessions/store/session-store.interface';
import type { McpSkillsOptions } from './ext/skills/skill.options';

/**
 * Options for `McpModule.forRoot()` / `forRootAsync()`.
 *
 * @publicApi
 */
export interface McpModuleOptions {
  /** HTTP path of the MCP endpoint. Default `/mcp`. */
  endpoint?: string;
  /**
   * Authorization: which operations lists show (default: what the caller may call), the OAuth
   * protected-resource metadata and challenges, and the built-in bearer-token resource server.
   * See `docs/authorization.md`.
   */
  auth?: McpAuthOptions;
  /** Name and version the server reports in `server/discover`. Default `{ name: 'nestjs-mcp', version: <package version> }`. */
  serverInfo?: { name: string; version: string; title?: string };
  /** Free-text instructions advertised to clients in `server/discover`. */
  instructions?: string;
  /**
   * Extra `Host` header values accepted besides `localhost`, `127.0.0.1` and `[::1]` (any port).
   * Entries are host names (`api.example.com`, any port) or `host:port`. Default none.
   */
  allowedHosts?: string[];
  /**
   * Extra `Origin` values accepted besides `http(s)://localhost|127.0.0.1|[::1]` on any port,
   * e.g. `https://app.example.com`. Requests without an `Origin` header are accepted. Default none.
   */
  allowedOrigins?: string[];
  /** Turns DNS-rebinding protection off. Only for servers behind a proxy that validates Host itself. Default `false`. */
  disableDnsRebindingProtection?: boolean;
  /** Largest accepted request body in bytes. Default 4 MiB (4,194,304). */
  maxRequestBodyBytes?: number;
  /** Time a request body may take to arrive, in ms; slower bodies get HTTP 408. Default 10,000. */
  requestBodyTimeoutMs?: number;
  /**
   * Memory that large request bodies may hold at once, counting each body's bytes beyond its first
   * 64 KiB until its response ends; a body that would exceed it gets HTTP 503 with `Retry-After`.
   * Small requests are never refused by it. Default 33,554,432 (32 MiB).
   */
  maxInFlightRequestBytes?: number;
  /**
   * Bounds for JSON request bodies, checked in one cheap pass before anything is parsed, so no
   * single request can hold the event loop. Bodies over a bound get HTTP 413 (nesting: 400).
   */
  json?: {
    /** Deepest object/array nesting accepted. Default 64. */
    maxDepth?: number;
    /** Longest number token, in characters. Default 1,024. */
    maxNumberLength?: number;
    /** Largest absolute exponent of a number token. Default 10,000. */
    maxExponent?: number;
    /** JSON values and keys in a body. Default 20,000. */
    maxNodes?: number;
    /** Members of any one object (tool arguments, form answers). Default 1,000. */
    maxObjectKeys?: number;
    /** Items of any one array. Default 10,000. */
    maxArrayLength?: number;
    /** Characters of any one string or key. Default 1,048,576. */
    maxStringLength?: number;
  };
  /** Cache hints (`ttlMs`, `cacheScope`) for cacheable results. Default `{ ttlMs: 0, cacheScope: 'private' }` everywhere. */
  cacheHints?: Partial<Record<McpCacheableMethod, CacheHint>>;
  /** SSE keep-alive interval for streaming responses, in ms. Default 15,000; 0 disables. */
  keepAliveMs?: number;
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
  /** Limits of framework-protected request state. */
  requestState?: {
    /** Longest state token accepted or emitted, in bytes. Default 65,536. */
    maxEncodedBytes?: number;
    /** Largest sealed plaintext (metadata plus application JSON), in bytes. Default 49,152; at most `maxEncodedBytes`. */
    maxDecodedBytes?: number;
    /** Lifetime of a flow from its first state, in ms. Default 900,000 (15 minutes). */
    maxLifetimeMs?: number;
    /** States one flow may emit. Default 10. */
    maxRounds?: number;
    /**
     * Makes every `FRAMEWORK_PROTECTED` operation single-use unless its decorator says
     * `singleUse: false`: each state it receives is accepted once (see `docs/request-state.md`,
     * "One-time state"). Default `false`.
     */
    singleUse?: boolean;
    /**
     * Unexpired single-use states the module's store (memory per process, Redis per fleet) holds
     * at once; past it, a new single-use state is refused with -32000 (`data.retryAfterMs`) until
     * older ones expire. Default 1,000,000; 1 – 100,000,000. Ignored with a custom
     * `consumedStateStore`.
     */
    maxConsumedStates?: number;
    /**
     * Unexpired single-use states one caller (authorization partition) holds in the module's
     * store; near full, callers holding more than their shrinking share are refused first.
     * Default 10,000.
     */
    maxConsumedStatesPerCaller?: number;
    /**
     * Largest data `McpStateHandleFlow.save()` accepts, in UTF-8 bytes of JSON; more fails the
     * call with -32603. Default 16,384; 2 – 1,048,576.
     */
    maxHandleDataBytes?: number;
    /**
     * State handles the module's repository (memory per process, Redis per fleet) holds at once;
     * past it, saving a new flow answers -32000 (`data.retryAfterMs`) until older ones finish or
     * expire. Default 10,000; 1 – 10,000,000. Ignored with a custom `stateHandleRepository`.
     */
    maxStateHandles?: number;
    /**
     * State handles one caller (authorization partition) holds; near full, callers holding more
     * than their shrinking share are refused first. Default 100.
     */
    maxStateHandlesPerCaller?: number;
    /**
     * Bytes of handle data (plus 256 per record) the module's repository holds; each caller may
     * hold the same fraction of it as of the records. Default 67,108,864 (64 MiB).
     */
    maxStateHandleBytes?: number;
  };
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
   * A custom request-state protector (e.g. backed by a KMS). You may instead provide
   * `RequestStateProtector` in any of your modules (`useClass`, `useExisting`, `useFactory`); giving
   * both, or two different ones, fails startup. Default: AES-256-GCM over the keyring.
   */
  protector?: RequestStateProtector;
  /**
   * Where single-use states are recorded as consumed (e.g. Redis, shared by a fleet). You may
   * instead provide `ConsumedStateStore` in any of your modules; giving both, or two different
   * ones, fails startup. Default: on Redis when `redis` is set, else in this process's memory,
   * bounded by `requestState.maxConsumedStates`.
   */
  consumedStateStore?: ConsumedStateStore;
  /**
   * Where `McpStateHandles` keeps the continuations of application-protected flows (e.g. a
   * `RedisStateHandleRepository`, shared by a fleet). You may instead provide
   * `StateHandleRepository` in any of your modules; giving both, or two different ones, fails
   * startup. Default: on Redis when `redis` is set, else in this process's memory, bounded by
   * `requestState.maxStateHandles`.
   */
  stateHandleRepository?: StateHandleRepository;
  /**
   * The Redis a fleet shares (a URL, or an ioredis client the app owns, plus a key prefix):
   * single-use states, state handles and tasks then live there unless `consumedStateStore`,
   * `stateHandleRepository` or `tasks.store` says otherwise, and task status notifications reach
   * every instance. Needs the optional peer dependency `ioredis`. Default none (everything in
   * memory). See `docs/redis.md`.
   */
  redis?: McpRedisOptions;
  /**
   * Names the caller's authorization partition for state binding; may also be provided as
   * `McpAuthorizationPartitionResolver` in any of your modules. Default: the user on `req.user`
   * (passport-style) and the OAuth client and subject on `req.auth`, else `anonymous`.
   */
  partitionResolver?: McpAuthorizationPartitionResolver;
  /**
   * The `req.user` field that identifies a user for the default partition resolver. Default: the
   * first of `id`, `sub`, `userId`, `username`, `email` the user object has.
   */
  userIdField?: string;
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
   * Serves `tools/call`, `prompts/get`, `resources/read` and the list methods of complete
   * 2026-07-28 requests directly, with the same answers as the official SDK's path but without an
   * SDK server per request; everything else (discovery, listen streams, requests asking for progress
   * or logs, 2025-era traffic, anything unusual) still goes through the SDK. Default `true`.
   */
  fastPath?: boolean;
  /**
   * The tasks extension (`io.modelcontextprotocol/tasks`): how long tasks live, where they are kept
   * and where they run. See `docs/tasks.md`.
   */
  tasks?: {
    /**
     * Serves the tasks extension; `false` leaves it out (with `forRoot`, none of its providers is
     * created), and a tool that declares `taskSupport: 'required'` then fails startup. Default `true`.
     */
    enabled?: boolean;
    /** Lifetime of a task from its creation, in ms (its `ttlMs`). Default 3,600,000 (1 hour). */
    ttlMs?: number;
    /** Longest lifetime a tool's `taskTtlMs` may ask for, in ms. Default 86,400,000 (24 hours). */
    maxTtlMs?: number;
    /** Poll interval suggested to clients, in ms. Default 1,000. */
    pollIntervalMs?: number;
    /** Largest result a task keeps, in JSON bytes; a bigger one fails the task. Default 1,048,576. */
    maxResultBytes?: number;
    /** Largest total of answers a task keeps, in JSON bytes; more is refused with -32602. Default 262,144. */
    maxInputResponseBytes?: number;
    /**
     * Unexpired tasks one caller (authorization partition) may hold at once; past it, creating one
     * answers -32000 until some expire. Callers the partition resolver cannot tell apart
     * (`anonymous`) share one allowance. Enforced by the module's stores. Default 100.
     */
    maxTasksPerCaller?: number;
    /**
     * Largest call a task keeps to run its later steps — its name, arguments, `_meta` and other
     * params, in JSON bytes; a bigger task-creating call is refused with -32602 before anything
     * runs. Default 262,144.
     */
    maxCallBytes?: number;
    /**
     * Unexpired tasks the module's own store (memory or Redis) holds at once; near full, callers
     * holding more than their shrinking share are refused first. Default 10,000.
     */
    maxTasks?: number;
    /**
     * Bytes the module's own store may hold: estimated heap in memory (JSON bytes plus 64 per JSON
     * value), JSON bytes in Redis. Default 1,073,741,824 (1 GiB).
     */
    maxStoreBytes?: number;
    /** Bytes of the module's own store one caller's tasks may hold. Default 67,108,864 (64 MiB). */
    maxStoreBytesPerCaller?: number;
    /**
     * Where tasks are kept. Default: a `TaskStore` the application provides in any module, else a
     * `RedisTaskStore` on the module's connection when `redis` is set, else a `MemoryTaskStore`.
     */
    store?: TaskStore;
    /** Where task steps run. Default: an `InProcessTaskRunner` (this process). */
    runner?: TaskRunner;
  };
  /**
   * 2025-era clients (2025-11-25, 2025-06-18) on the same endpoint: `initialize` opens a session
   * (`Mcp-Session-Id`), operations that ask for input ask them with real server-to-client requests
   * over the session, and tasks are 2025-11-25 tasks. Sessions live in `store` (memory, or Redis
   * when `redis` is set, so a fleet behind a round-robin balancer shares them). See
   * `docs/clients.md` ("2025-era clients") and `docs/redis.md` ("2025-era sessions").
   */
  sessions?: {
    /**
     * Serves 2025-era clients; `false` refuses them (HTTP 400, -32022), and with `forRoot` none of
     * the extension's providers is created. Default `true`.
     */
    enabled?: boolean;
    /**
     * Unexpired sessions at once: in this process with the memory store, fleet-wide with Redis;
     * past it, `initialize` gets HTTP 503 (-32000). Default 10,000; 1 – 10,000,000.
     */
    maxSessions?: number;
    /**
     * Unexpired sessions one caller (authorization partition) may hold; past it, `initialize` gets
     * HTTP 429 (-32000). Callers the partition resolver cannot tell apart (`anonymous`) share one
     * allowance. Default 100 (`maxSessions` if lower).
     */
    maxSessionsPerCaller?: number;
    /** A session without a request for this long is gone (HTTP 404 after). Default 1,800,000 (30 minutes). */
    idleTimeoutMs?: number;
    /**
     * Server-to-client rounds one call may take; a call still asking after them ends with -32012.
     * Default 10; 1 – 1,000. (`requestState.maxRounds` still bounds framework-protected flows.)
     */
    maxInputRounds?: number;
    /** How long a call waits for each answer; then it ends with -32011. Default 300,000 (5 minutes). */
    answerTimeoutMs?: number;
    /**
     * Server-to-client requests of one session waiting for answers at once; a call that would
     * ask one more ends with -32000. Default 16; 1 – 10,000.
     */
    maxPendingRequests?: number;
    /** Resource URIs one session may subscribe to (`resources/subscribe`). Default 100. */
    maxSubscriptions?: number;
    /**
     * What one session may hold of its client's choosing, in JSON characters: its `initialize`
     * declarations (capabilities and client info; more is refused with 400 -32602) plus its
     * subscribed URIs (a subscription past it is -32602). With `maxSessions` it bounds what all
     * sessions hold: 10,000 × 8 KiB. Default 8,192; 1,024 – 1,048,576.
     */
    maxSessionBytes?: number;
    /**
     * Where sessions are kept. Default: a `SessionStore` the application provides in any module,
     * else a `RedisSessionStore` on the module's connection when `redis` is set (records
     * authenticated under the keyring), else a `MemorySessionStore`.
     */
    store?: SessionStore;
  };
  /**
   * Skills (`io.modelcontextprotocol/skills`, SEP-2640): a folder of skill folders and
   * `@McpSkill()` methods, served per caller as `skills/list`, `skills/get`, `skill://` resources
   * and directory reads, on both eras. Off unless given. See `docs/skills.md`.
   */
  skills?: McpSkillsOptions;
  /** Safety policy of elicitations. */
  elicitation?: {
    /** Decides which form fields ask for secrets. Default: the reviewed concept policy (passwords, keys and tokens, payment cards, verification codes). */
    secretPolicy?: SecretFieldPolicy;
    /** Allows `http://localhost` URL elicitations. Default: `NODE_ENV === 'development'`. */
    development?: boolean;
  };
}

export type { McpCacheableMethod };
