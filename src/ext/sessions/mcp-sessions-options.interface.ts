import type { SessionStore } from './store/session-store.interface';

/**
 * 2025-era clients (2025-11-25, 2025-06-18) on the same endpoint: `initialize` opens a session
 * (`Mcp-Session-Id`), operations that ask for input ask them with real server-to-client requests
 * over the session, and tasks are 2025-11-25 tasks. Sessions live in `store` (memory, or Redis
 * when `redis` is set, so a fleet behind a round-robin balancer shares them). See
 * `docs/clients.md` ("2025-era clients") and `docs/redis.md` ("2025-era sessions").
 * @publicApi
 */
export interface McpSessionsOptions {
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
}
