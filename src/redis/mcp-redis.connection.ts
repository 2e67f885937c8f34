import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import type { ClusterOptions, Redis, RedisOptions } from 'ioredis';
import {
  REDIS_OPTIONS,
  type RedisOptionsSlice,
  type ResolvedCluster,
  type ResolvedRedisOptions,
  type ResolvedSentinel,
} from './redis-options.resolver';
import { boundedRedisCommand } from './bounded-redis-command';
import { duplicateConnection, type McpRedisConnectionOverrides } from './duplicate-connection';
import { loadIoredis } from './load-ioredis';
import type { McpRedisClient } from './mcp-redis-client';
import type { McpRedisConnectionClient } from './mcp-redis-connection-client';

/** Name the module's own connections show in `CLIENT LIST`. @internal */
export const MCP_REDIS_CONNECTION_NAME = 'nestjs-mcp';
/** Reconnect quickly and keep trying: an outage fails calls, it never needs a restart. */
const RECONNECT_DELAY_MS = { step: 100, max: 1_000 };
const QUIT_TIMEOUT_MS = 1_000;

/**
 * The module's one Redis connection, from the `redis` option, shared by every Redis-backed store.
 * With a URL it creates the client (connecting at module init, reconnecting forever, named
 * `nestjs-mcp` in `CLIENT LIST`) and quits it on application shutdown; a client the app passed in
 * is used as it is and never quit. Stores build keys with {@link key} and send commands through
 * {@link run}, which fails fast and closed.
 * @internal
 */
@Injectable()
export class McpRedisConnection implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpRedis');
  private readonly shared: Redis | undefined;
  /** Clients created here, quit on shutdown. */
  private readonly owned: Redis[] = [];
  /** Owned clients that lost their connection and are not ready again. */
  private readonly down = new Set<Redis>();
  private closing = false;
  /** Prefix of every key the module writes (`redis.keyPrefix`, default `nestjs-mcp:`). */
  readonly prefix: string = '';
  /** Longest wait for one command (`redis.commandTimeoutMs`). */
  readonly commandTimeoutMs: number = 0;
  /** Replica acknowledgements a single-use record waits for (`redis.waitForReplicas`). */
  readonly waitForReplicas: { replicas: number; timeoutMs: number } | undefined;
  /** The configured prefix, when a hash tag was added to it for a cluster. */
  private readonly untaggedPrefix: string | undefined;

  constructor(@Inject(REDIS_OPTIONS) options: RedisOptionsSlice) {
    const redis = options.redis;
    if (!redis) return;
    this.prefix = redis.keyPrefix;
    this.untaggedPrefix = redis.untaggedKeyPrefix;
    this.commandTimeoutMs = redis.commandTimeoutMs;
    this.waitForReplicas = redis.waitForReplicas;
    if ('client' in redis) {
      this.shared = redis.client as unknown as Redis;
      return;
    }
    this.shared = this.adopt(createClient(redis));
  }

  /**
   * Connects the module's own client and waits up to `commandTimeoutMs` for the shared client to be
   * ready, so the first calls after startup do not race the connection. Redis being down does not
   * stop the app from starting: it is logged, and calls that need Redis fail until it is back.
   */
  async onModuleInit(): Promise<void> {
    const client = this.shared;
    if (!client) return;
    if (this.untaggedPrefix !== undefined)
      this.logger.log(
        `On Redis Cluster the key prefix "${this.untaggedPrefix}" becomes "${this.prefix}": its hash tag keeps the keys of each script in one slot`,
      );
    // A failed first attempt is retried by the retry strategy like any lost connection.
    if (this.owned.includes(client) && client.status === 'wait')
      client.connect().catch(() => undefined);
    // An app's lazy client ('wait') connects on its first command instead.
    if (client.status === 'wait' || (await this.readyWithin(client, this.commandTimeoutMs))) return;
    this.logger.warn(
      `Redis is not ready ${this.commandTimeoutMs} ms after startup (redis.commandTimeoutMs); calls that need it fail until it is`,
    );
  }

  /** Whether the `redis` option is set. */
  get configured(): boolean {
    return this.shared !== undefined;
  }

  /** The shared client. Throws when the `redis` option is not set. */
  get client(): McpRedisConnectionClient {
    return this.sharedClient();
  }

  private sharedClient(): Redis {
    if (!this.shared) throw new Error('The McpModule "redis" option is not set');
    return this.shared;
  }

  /** `<prefix><part>:<part>…`, e.g. `key('consumed', id)` is `nestjs-mcp:consumed:<id>`. */
  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  /**
   * The shared client's `call`, each command as {@link run} runs it (refused at once while
   * disconnected, bounded by `commandTimeoutMs`): the client the module gives the Redis adapters
   * it makes that send raw commands (the task and session stores).
   */
  readonly bounded: Pick<McpRedisClient, 'call'> = {
    call: ((command: string, ...args: (string | number)[]) =>
      this.run((client) => client.call(command, ...args))) as McpRedisClient['call'],
  };

  /**
   * Runs a command on the shared client, refused at once while it is disconnected and rejected
   * after `commandTimeoutMs`; every failure is a `RedisCommandError` with a loggable reason.
   */
  run<T>(command: (client: McpRedisConnectionClient) => Promise<T>): Promise<T> {
    const client = this.client;
    return boundedRedisCommand(client, this.commandTimeoutMs, () => command(client));
  }

  /**
   * A new connection to the same server with `overrides` (e.g. `{ maxRetriesPerRequest: null }`
   * for a BullMQ worker), owned and quit on shutdown like one created from a URL.
   */
  duplicate(overrides: McpRedisConnectionOverrides = {}): McpRedisConnectionClient {
    const shared = this.sharedClient() as unknown as McpRedisClient;
    const duplicate = duplicateConnection(shared, { lazyConnect: false, ...overrides });
    return this.adopt(duplicate as unknown as Redis);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    await Promise.all(this.owned.map((client) => this.quit(client)));
    this.owned.length = 0;
  }

  private readyWithin(client: Redis, timeoutMs: number): Promise<boolean> {
    if (client.status === 'ready') return Promise.resolve(true);
    return new Promise((done) => {
      const ready = () => {
        clearTimeout(timer);
        done(true);
      };
      const timer = setTimeout(() => {
        client.off('ready', ready);
        done(false);
      }, timeoutMs);
      client.once('ready', ready);
    });
  }

  private adopt(client: Redis): Redis {
    // One outage takes every connection down (shared, subscriber, workers): one line when the first
    // is lost, one when the last is back.
    const lost = (cause: string) => {
      if (this.down.has(client) || this.closing) return;
      this.down.add(client);
      if (this.down.size > 1) return;
      this.logger.warn(
        `Redis connection lost (${cause}); reconnecting, calls that need Redis fail meanwhile`,
      );
    };
    // With a listener, ioredis no longer prints every failed reconnect; one line per outage is enough.
    client.on('error', (error: { code?: unknown; name?: unknown }) =>
      lost(String(error.code ?? error.name)),
    );
    client.on('close', () => lost('closed'));
    client.on('ready', () => {
      if (!this.down.delete(client) || this.down.size > 0) return;
      this.logger.log('Redis connection ready again');
    });
    this.owned.push(client);
    return client;
  }

  private async quit(client: Redis): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.quit(),
        new Promise((done) => (timer = setTimeout(done, QUIT_TIMEOUT_MS))),
      ]);
    } catch {
      // Already closed or unreachable: disconnecting below is all that is left to do.
    } finally {
      clearTimeout(timer);
      // A second disconnect of an ended client would hold a timer for ioredis's disconnect timeout.
      if (client.status !== 'end') client.disconnect();
    }
  }
}

/** The module's own client for `redis` (a URL, a Sentinel set or a cluster). */
function createClient(redis: Exclude<ResolvedRedisOptions, { client: unknown }>): Redis {
  const ioredis = loadIoredis() as typeof import('ioredis');
  const own: RedisOptions = {
    // Connects in onModuleInit: an app that fails to start never opens a socket it cannot close.
    lazyConnect: true,
    connectionName: MCP_REDIS_CONNECTION_NAME,
    retryStrategy: (attempt) => Math.min(attempt * RECONNECT_DELAY_MS.step, RECONNECT_DELAY_MS.max),
  };
  if ('url' in redis) return new ioredis.Redis(redis.url, own);
  if ('sentinel' in redis) return new ioredis.Redis({ ...own, ...sentinelOptions(redis.sentinel) });
  // The stores use the cluster as they use one client; the type they see is the structural one.
  return new ioredis.Cluster(
    redis.cluster.nodes.map(({ host, port }) => ({ host, port })),
    clusterOptions(redis.cluster),
  ) as unknown as Redis;
}

/**
 * ioredis options for a cluster: the module's connection settings on every node, reconnecting as a
 * single client does; a command sent during a failover waits for the slot map to settle (bounded by
 * `commandTimeoutMs` like every command).
 */
function clusterOptions(cluster: ResolvedCluster): ClusterOptions {
  return {
    lazyConnect: true,
    clusterRetryStrategy: (attempt) =>
      Math.min(attempt * RECONNECT_DELAY_MS.step, RECONNECT_DELAY_MS.max),
    redisOptions: {
      connectionName: MCP_REDIS_CONNECTION_NAME,
      ...(cluster.username !== undefined && { username: cluster.username }),
      ...(cluster.password !== undefined && { password: cluster.password }),
      ...(cluster.tls && { tls: {} }),
    },
  };
}

/**
 * ioredis options for a master behind Sentinel: the client asks the sentinels for the master and,
 * when it fails over, reconnects to the one they elect (and its duplicates with it).
 */
function sentinelOptions(sentinel: ResolvedSentinel): RedisOptions {
  return {
    sentinels: sentinel.sentinels.map(({ host, port }) => ({ host, port })),
    name: sentinel.name,
    db: sentinel.db,
    ...(sentinel.username !== undefined && { username: sentinel.username }),
    ...(sentinel.password !== undefined && { password: sentinel.password }),
    ...(sentinel.sentinelPassword !== undefined && { sentinelPassword: sentinel.sentinelPassword }),
    ...(sentinel.tls && { tls: {}, enableTLSForSentinelMode: true }),
    sentinelRetryStrategy: (attempt) =>
      Math.min(attempt * RECONNECT_DELAY_MS.step, RECONNECT_DELAY_MS.max),
  };
}
