import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import type { McpRedisClient } from './mcp-redis-client';
import type { McpRedisOptions, McpRedisSentinelOptions } from './mcp-redis-options.interface';

/** A Sentinel set, checked: its sentinels as host and port. @internal */
export interface ResolvedSentinel {
  readonly sentinels: readonly { readonly host: string; readonly port: number }[];
  readonly name: string;
  readonly username?: string;
  readonly password?: string;
  readonly sentinelPassword?: string;
  readonly tls: boolean;
  readonly db: number;
}

/** The validated `redis` option. @internal */
export type ResolvedRedisOptions = (
  { url: string } | { sentinel: ResolvedSentinel } | { client: McpRedisClient }
) & {
  keyPrefix: string;
  commandTimeoutMs: number;
};

/** The `redis` option as the module's connection takes it. @internal */
export interface RedisOptionsSlice {
  readonly redis: ResolvedRedisOptions | undefined;
}

/** Injection token of the {@link RedisOptionsSlice}. @internal */
export const REDIS_OPTIONS = Symbol('RedisOptions');

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
      'must be an object with "url", "sentinel" or "client"',
    );
  const { url, client, sentinel } = redis;
  if ([url, client, sentinel].filter((given) => given !== undefined).length !== 1)
    throw new InvalidModuleOptionsError(
      'redis',
      'needs exactly one of "url", "sentinel" and "client"',
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
        : { client: client as McpRedisClient };
  return { ...target, keyPrefix, commandTimeoutMs };
}

const MAX_SENTINELS = 16;

/** Checks `redis.sentinel`; never echoes a password. */
function resolveSentinel(sentinel: McpRedisSentinelOptions): ResolvedSentinel {
  if (sentinel === null || typeof sentinel !== 'object')
    throw new InvalidModuleOptionsError('redis.sentinel', 'must be an object');
  const { sentinels, name } = sentinel;
  if (!Array.isArray(sentinels) || sentinels.length === 0 || sentinels.length > MAX_SENTINELS)
    throw new InvalidModuleOptionsError(
      'redis.sentinel.sentinels',
      `must list 1 to ${MAX_SENTINELS} sentinels as "host:port"`,
    );
  const parsed = sentinels.map((entry, index) => {
    const match =
      typeof entry === 'string' ? /^([^\s:]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(entry) : null;
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65_535)
      throw new InvalidModuleOptionsError(
        `redis.sentinel.sentinels[${index}]`,
        'must be "host:port"',
      );
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
  if (typeof name !== 'string' || name === '' || name.length > 256)
    throw new InvalidModuleOptionsError('redis.sentinel.name', "must be the master's name");
  for (const field of ['username', 'password', 'sentinelPassword'] as const)
    if (sentinel[field] !== undefined && typeof sentinel[field] !== 'string')
      throw new InvalidModuleOptionsError(`redis.sentinel.${field}`, 'must be a string');
  const db = sentinel.db ?? 0;
  if (!Number.isSafeInteger(db) || db < 0)
    throw new InvalidModuleOptionsError('redis.sentinel.db', 'must be a non-negative integer');
  if (sentinel.tls !== undefined && typeof sentinel.tls !== 'boolean')
    throw new InvalidModuleOptionsError('redis.sentinel.tls', 'must be a boolean');
  return {
    sentinels: parsed,
    name,
    ...(sentinel.username !== undefined && { username: sentinel.username }),
    ...(sentinel.password !== undefined && { password: sentinel.password }),
    ...(sentinel.sentinelPassword !== undefined && { sentinelPassword: sentinel.sentinelPassword }),
    tls: sentinel.tls === true,
    db,
  };
}
