import type { McpRedisClient } from './mcp-redis-client';

/**
 * The Redis every Redis-backed store of the module shares (single-use state, and the stores that
 * build on it), given as a URL, a Sentinel set or a Redis Cluster — the module then creates the client and quits it
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
  /**
   * `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). Exactly one of `url`,
   * `sentinel`, `cluster` and `client`.
   */
  url?: string;
  /**
   * A master behind Redis Sentinel: the module's client asks the sentinels where the master is, and
   * follows it when they fail it over (ioredis's Sentinel support). Exactly one of `url`,
   * `sentinel`, `cluster` and `client`. See `docs/redis.md` ("Sentinel").
   */
  sentinel?: McpRedisSentinelOptions;
  /**
   * A Redis Cluster, from some of its nodes (ioredis's `Cluster` finds the rest, and follows
   * failovers and slot moves). The module's keys then carry a hash tag, so that every script's keys
   * share one slot. Exactly one of `url`, `sentinel`, `cluster` and `client`. See `docs/redis.md`
   * ("Cluster").
   */
  cluster?: McpRedisClusterOptions;
  /**
   * An ioredis client (`Redis` or `Cluster`) the application created and owns. Exactly one of
   * `url`, `sentinel`, `cluster` and `client`.
   */
  client?: McpRedisClient;
  /**
   * Prefix of every key the module writes, so several apps can share one Redis. Default
   * `nestjs-mcp:`. On a cluster a prefix without a hash tag is given one (`nestjs-mcp:` becomes
   * `{nestjs-mcp}:`, said once at startup): the module's scripts touch several keys at once, which
   * a cluster allows only within one slot.
   */
  keyPrefix?: string;
  /**
   * Longest wait for one Redis command, in ms; a command not answered in time fails the call that
   * needed it (`-32603`, reason `timeout` logged). While the client is disconnected, commands fail
   * at once (reason `unavailable`) instead of queueing. Default 1,000; 1 – 60,000.
   */
  commandTimeoutMs?: number;
  /**
   * Single-use state accepted only once `replicas` replicas acknowledged its record (`WAIT`), for
   * at most `timeoutMs` (default half of `commandTimeoutMs`); fewer refuse the call with `-32603`,
   * the state staying spent. A failover then cannot forget an accepted state (unless every
   * acknowledging replica is lost too). Costs a round trip to the replicas per single-use call.
   * Not on a cluster. See `docs/redis.md` ("Durability").
   */
  waitForReplicas?: { replicas: number; timeoutMs?: number };
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

/** Some nodes of a Redis Cluster (`McpRedisOptions.cluster`). @publicApi */
export interface McpRedisClusterOptions {
  /** Nodes to start from, `host:port` each (at least one; the client discovers the others). */
  nodes: string[];
  /** ACL user and password of the nodes. */
  username?: string;
  password?: string;
  /** TLS to the nodes. Default `false`. */
  tls?: boolean;
}
