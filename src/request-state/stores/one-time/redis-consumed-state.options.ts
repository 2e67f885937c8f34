import type { McpRedisClient } from '../../../redis/mcp-redis-client';

/** Options of {@link RedisConsumedStateStore}. @publicApi */
export interface RedisConsumedStateStoreOptions {
  /** Prefix of its keys, `<keyPrefix>consumed:<id>`. Default `nestjs-mcp:`. */
  keyPrefix?: string;
  /** Longest wait for Redis's answer, in ms, before the presentation is refused (`timeout`). Default 1,000. */
  commandTimeoutMs?: number;
  /** Consumed states the fleet holds at once; past it a presentation is refused (`full`). Default 1,000,000. */
  maxEntries?: number;
  /** Consumed states one owner (caller) holds at once (`share`). Default: `maxEntries`. */
  maxEntriesPerOwner?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /**
   * After recording a presentation, wait for this many replicas to acknowledge it (`WAIT`) before
   * accepting it, for at most `timeoutMs` (less than `commandTimeoutMs`); fewer acknowledgements
   * refuse the presentation (`not replicated`, answered `-32000`) and release it: the method did
   * not run, so the retry may be accepted. Narrows what a failover
   * can lose (docs/redis.md, "Durability"). Not on a Redis Cluster. Default: no wait.
   */
  waitForReplicas?: { replicas: number; timeoutMs: number };
}

/** `waitForReplicas` as given, checked against the store's timeout and client. @internal */
export function checkedReplicaWait(
  wait: RedisConsumedStateStoreOptions['waitForReplicas'],
  commandTimeoutMs: number,
  client: Partial<Pick<McpRedisClient, 'call' | 'isCluster'>>,
): { replicas: number; timeoutMs: number } | undefined {
  if (wait === undefined) return undefined;
  const { replicas, timeoutMs } = wait ?? {};
  if (!Number.isSafeInteger(replicas) || replicas < 1 || replicas > 16)
    throw new RangeError('waitForReplicas.replicas must be an integer from 1 to 16');
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs >= commandTimeoutMs)
    throw new RangeError(
      'waitForReplicas.timeoutMs must be a positive integer below commandTimeoutMs',
    );
  if (client.isCluster === true)
    throw new TypeError(
      'waitForReplicas is not available on a Redis Cluster (WAIT has no key to route by)',
    );
  if (typeof client.call !== 'function')
    throw new TypeError('waitForReplicas needs a client with call()');
  return { replicas, timeoutMs };
}
