import type { McpRedisClient } from './mcp-redis-client';

/**
 * The Redis every Redis-backed store of the module shares (single-use state, and the stores that
 * build on it), given as a URL or a Sentinel set — the module then creates the client and quits it
 * on shutdown — or as an ioredis client the application owns (never quit by the module). Needs the
 * optional peer dependency `ioredis`. See `docs/redis.md`.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ redis: { url: process.env.REDIS_URL } });
 * McpModule.forRootAsync({
 *   inject: [REDIS_CLIENT],
 *   useFactory: (client: Redis) => ({ redis: { client, keyPrefix: 'billing-mcp:' } }),
 * });
 * ```
 * @publicApi
 */
export interface McpRedisOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). Exactly one of `url`, `sentinel` and `client`. */
  url?: string;
  /**
   * A master behind Redis Sentinel: the module's client asks the sentinels where the master is, and
   * follows it when they fail it over (ioredis's Sentinel support). Exactly one of `url`,
   * `sentinel` and `client`. See `docs/redis.md` ("Sentinel").
   */
  sentinel?: McpRedisSentinelOptions;
  /** An ioredis client the application created and owns. Exactly one of `url`, `sentinel` and `client`. */
  client?: McpRedisClient;
  /** Prefix of every key the module writes, so several apps can share one Redis. Default `nestjs-mcp:`. */
  keyPrefix?: string;
  /**
   * Longest wait for one Redis command, in ms; a command not answered in time fails the call that
   * needed it (`-32603`, reason `timeout` logged). While the client is disconnected, commands fail
   * at once (reason `unavailable`) instead of queueing. Default 1,000; 1 – 60,000.
   */
  commandTimeoutMs?: number;
}

/** A Sentinel set and the master it watches (`McpRedisOptions.sentinel`). @publicApi */
export interface McpRedisSentinelOptions {
  /** The sentinels, `host:port` each (at least one; three or more in production). */
  sentinels: string[];
  /** The master's name in the sentinels' configuration (`sentinel monitor <name> …`). */
  name: string;
  /** ACL user and password of the master and its replicas. */
  username?: string;
  password?: string;
  /** Password of the sentinels themselves, when they require one. */
  sentinelPassword?: string;
  /** TLS to the master and its replicas. Default `false`. */
  tls?: boolean;
  /** Database number. Default 0. */
  db?: number;
}
