import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import type { McpRedisClient } from './mcp-redis-client';
import type {
  McpRedisClusterOptions,
  McpRedisOptions,
  McpRedisSentinelOptions,
} from './mcp-redis-options.interface';
import { isClusterClient, withHashTag } from './cluster-key-prefix';

/** A Redis server's address. @internal */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** A Sentinel set, checked: its sentinels as host and port. @internal */
export interface ResolvedSentinel {
  readonly sentinels: readonly HostPort[];
  readonly name: string;
  readonly username?: string;
  readonly password?: string;
  readonly sentinelPassword?: string;
  readonly tls: boolean;
  readonly db: number;
}

/** A Redis Cluster's start nodes, checked. @internal */
export interface ResolvedCluster {
  readonly nodes: readonly HostPort[];
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}

/** The validated `redis` option. @internal */
export type ResolvedRedisOptions = (
  | { url: string }
  | { sentinel: ResolvedSentinel }
  | { cluster: ResolvedCluster }
  | { client: McpRedisClient }
) & {
  /** The prefix of every key: on a cluster, with a hash tag. */
  keyPrefix: string;
  /** The prefix as configured, when a hash tag was added to it (said at startup). */
  untaggedKeyPrefix?: string;
  commandTimeoutMs: number;
  /** Replicas that must acknowledge a single-use record, and for how long to wait. */
  waitForReplicas?: { replicas: number; timeoutMs: number };
};

/** The `redis` option as the module's connection takes it. @internal */
export interface RedisOptionsSlice {
  readonly redis: ResolvedRedisOptions | undefined;
}

/** Injection token of the {@link RedisOptionsSlice}. @internal */
export const REDIS_OPTIONS = Symbol('RedisOptions');

/** @internal */
export const DEFAULT_REDIS_KEY_PREFIX = 'nestjs-mcp:';
const MAX_KEY_PREFIX_LENGTH = 256;
const COMMAND_TIMEOUT_MS = { fallback: 1_000, min: 1, max: 60_000 };

function isRedisUrl(url: string): boolean {
  try {
    const protocol = new URL(url).protocol;
    return protocol === 'redis:' || protocol === 'rediss:';
  } catch {
    return false;
  }
}

function isRedisClient(client: unknown): client is McpRedisClient {
  const candidate = client as Partial<Record<keyof McpRedisClient, unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.status === 'string' &&
    typeof candidate.set === 'function'
  );
}

/**
 * Checks the `redis` option; throws {@link InvalidModuleOptionsError} naming the bad field. The
 * URL is never echoed: it may hold a password.
 * @internal
 */
export function resolveRedisOptions(
  redis: McpRedisOptions | undefined,
): ResolvedRedisOptions | undefined {
  if (redis === undefined) return undefined;
  if (redis === null || typeof redis !== 'object')
    throw new InvalidModuleOptionsError(
      'redis',
      'must be an object with "url", "sentinel", "cluster" or "client"',
    );
  const { url, client, sentinel, cluster } = redis;
  if ([url, client, sentinel, cluster].filter((given) => given !== undefined).length !== 1)
    throw new InvalidModuleOptionsError(
      'redis',
      'needs exactly one of "url", "sentinel", "cluster" and "client"',
    );
  if (url !== undefined && (typeof url !== 'string' || !isRedisUrl(url)))
    throw new InvalidModuleOptionsError('redis.url', 'must be a redis:// or rediss:// URL');
  if (client !== undefined && !isRedisClient(client))
    throw new InvalidModuleOptionsError(
      'redis.client',
      'must be an ioredis client (with "status" and "set")',
    );
  const keyPrefix = redis.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  if (typeof keyPrefix !== 'string' || keyPrefix.length > MAX_KEY_PREFIX_LENGTH)
    throw new InvalidModuleOptionsError(
      'redis.keyPrefix',
      `must be a string of at most ${MAX_KEY_PREFIX_LENGTH} characters`,
    );
  const commandTimeoutMs = redis.commandTimeoutMs ?? COMMAND_TIMEOUT_MS.fallback;
  if (
    !Number.isSafeInteger(commandTimeoutMs) ||
    commandTimeoutMs < COMMAND_TIMEOUT_MS.min ||
    commandTimeoutMs > COMMAND_TIMEOUT_MS.max
  )
    throw new InvalidModuleOptionsError(
      'redis.commandTimeoutMs',
      `must be an integer from ${COMMAND_TIMEOUT_MS.min} to ${COMMAND_TIMEOUT_MS.max.toLocaleString('en-US')}, got ${String(commandTimeoutMs)}`,
    );
  const target =
    url !== undefined
      ? { url }
      : sentinel !== undefined
        ? { sentinel: resolveSentinel(sentinel) }
        : cluster !== undefined
          ? { cluster: resolveCluster(cluster) }
          : { client: client as McpRedisClient };
  const onCluster = 'cluster' in target || isClusterClient(client);
  const waitForReplicas = resolveReplicaWait(redis.waitForReplicas, commandTimeoutMs, onCluster);
  if (!onCluster) return { ...target, keyPrefix, commandTimeoutMs, ...waitForReplicas };
  const tagged = withHashTag(keyPrefix);
  if (tagged === undefined)
    throw new InvalidModuleOptionsError(
      'redis.keyPrefix',
      'must not be empty on a cluster: its hash tag keeps the keys of each script in one slot',
    );
  return {
    ...target,
    keyPrefix: tagged,
    ...(tagged !== keyPrefix && { untaggedKeyPrefix: keyPrefix }),
    commandTimeoutMs,
  };
}

const MAX_REPLICAS = 16;

/** Checks `redis.waitForReplicas`; `{}` when it is not set. */
function resolveReplicaWait(
  wait: McpRedisOptions['waitForReplicas'],
  commandTimeoutMs: number,
  onCluster: boolean,
): { waitForReplicas?: { replicas: number; timeoutMs: number } } {
  if (wait === undefined) return {};
  const field = 'redis.waitForReplicas';
  if (wait === null || typeof wait !== 'object')
    throw new InvalidModuleOptionsError(field, 'must be an object with "replicas"');
  if (onCluster)
    throw new InvalidModuleOptionsError(field, 'is not available on a cluster (WAIT has no key)');
  const { replicas } = wait;
  if (!Number.isSafeInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS)
    throw new InvalidModuleOptionsError(
      `${field}.replicas`,
      `must be an integer from 1 to ${MAX_REPLICAS}`,
    );
  const timeoutMs = wait.timeoutMs ?? Math.max(1, Math.floor(commandTimeoutMs / 2));
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs >= commandTimeoutMs)
    throw new InvalidModuleOptionsError(
      `${field}.timeoutMs`,
      'must be a positive integer below redis.commandTimeoutMs',
    );
  return { waitForReplicas: { replicas, timeoutMs } };
}

/** `host:port` entries of `field`, parsed (an IPv6 host in brackets). */
function hostPorts(field: string, entries: unknown, max: number, what: string): HostPort[] {
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > max)
    throw new InvalidModuleOptionsError(field, `must list 1 to ${max} ${what} as "host:port"`);
  return entries.map((entry: unknown, index) => {
    const match =
      typeof entry === 'string' ? /^([^\s:]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(entry) : null;
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65_535)
      throw new InvalidModuleOptionsError(`${field}[${index}]`, 'must be "host:port"');
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
}

/** The optional string fields of `options` at `field`, checked. */
function checkStrings<T extends object>(options: T, field: string, names: readonly (keyof T)[]) {
  for (const name of names)
    if (options[name] !== undefined && typeof options[name] !== 'string')
      throw new InvalidModuleOptionsError(`${field}.${String(name)}`, 'must be a string');
}

function checkTls(tls: unknown, field: string): boolean {
  if (tls !== undefined && typeof tls !== 'boolean')
    throw new InvalidModuleOptionsError(`${field}.tls`, 'must be a boolean');
  return tls === true;
}

const MAX_CLUSTER_NODES = 64;

/** Checks `redis.cluster`; never echoes a password. */
function resolveCluster(cluster: McpRedisClusterOptions): ResolvedCluster {
  if (cluster === null || typeof cluster !== 'object')
    throw new InvalidModuleOptionsError('redis.cluster', 'must be an object');
  const nodes = hostPorts('redis.cluster.nodes', cluster.nodes, MAX_CLUSTER_NODES, 'nodes');
  checkStrings(cluster, 'redis.cluster', ['username', 'password']);
  return {
    nodes,
    ...(cluster.username !== undefined && { username: cluster.username }),
    ...(cluster.password !== undefined && { password: cluster.password }),
    tls: checkTls(cluster.tls, 'redis.cluster'),
  };
}

const MAX_SENTINELS = 16;

/** Checks `redis.sentinel`; never echoes a password. */
function resolveSentinel(sentinel: McpRedisSentinelOptions): ResolvedSentinel {
  if (sentinel === null || typeof sentinel !== 'object')
    throw new InvalidModuleOptionsError('redis.sentinel', 'must be an object');
  const { sentinels, name } = sentinel;
  const parsed = hostPorts('redis.sentinel.sentinels', sentinels, MAX_SENTINELS, 'sentinels');
  if (typeof name !== 'string' || name === '' || name.length > 256)
    throw new InvalidModuleOptionsError('redis.sentinel.name', "must be the master's name");
  checkStrings(sentinel, 'redis.sentinel', ['username', 'password', 'sentinelPassword']);
  const db = sentinel.db ?? 0;
  if (!Number.isSafeInteger(db) || db < 0)
    throw new InvalidModuleOptionsError('redis.sentinel.db', 'must be a non-negative integer');
  return {
    sentinels: parsed,
    name,
    ...(sentinel.username !== undefined && { username: sentinel.username }),
    ...(sentinel.password !== undefined && { password: sentinel.password }),
    ...(sentinel.sentinelPassword !== undefined && { sentinelPassword: sentinel.sentinelPassword }),
    tls: checkTls(sentinel.tls, 'redis.sentinel'),
    db,
  };
}
