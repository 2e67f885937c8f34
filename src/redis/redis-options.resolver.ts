import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import type { McpRedisClient } from './mcp-redis-client';
import type { McpRedisOptions } from './mcp-redis-options.interface';

/** The validated `redis` option. @internal */
export type ResolvedRedisOptions = ({ url: string } | { client: McpRedisClient }) & {
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
    throw new InvalidModuleOptionsError('redis', 'must be an object with "url" or "client"');
  const { url, client } = redis;
  if ((url === undefined) === (client === undefined))
    throw new InvalidModuleOptionsError('redis', 'needs exactly one of "url" and "client"');
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
  const target = url !== undefined ? { url } : { client: client as McpRedisClient };
  return { ...target, keyPrefix, commandTimeoutMs };
}
