import { boundedRedisCommand } from '../../../redis/bounded-redis-command';
import type { McpRedisClient } from '../../../redis/mcp-redis-client';
import { RedisCommandError } from '../../../redis/redis-command.error';
import { DEFAULT_REDIS_KEY_PREFIX } from '../../../redis/redis-options.resolver';
import { retryAfterMs, SHARE_REFUSAL_LUA, type ShareLimits } from '../../../kit/fair-share';
import { ConsumedStateStoreError } from './consumed-state-store.error';
import type { ConsumedStateStore } from './consumed-state-store.interface';
import { adapterKeyPrefix } from '../../../redis/cluster-key-prefix';

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
   * refuse the presentation (`not replicated`), the state staying spent. Narrows what a failover
   * can lose (docs/redis.md, "Durability"). Not on a Redis Cluster. Default: no wait.
   */
  waitForReplicas?: { replicas: number; timeoutMs: number };
}

// One presentation, atomically: the state's key (`SET … PX`, as ever), and beside it every unexpired
// state scored by expiry in `<prefix>consumed~all` and per owner in `<prefix>consumed~by:<owner>`,
// which the fair shares are counted from. KEYS: the state, all, the owner's. ARGV: time left,
// expiresAt, now, maxEntries, per owner, id. Answers 1, 0 (presented before) or {reason, first}.
const CONSUME = `${SHARE_REFUSAL_LUA}
-- The SET comes first: a script's first write decides whether an out-of-memory Redis refuses it.
if not redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
local refused = share_refusal(tonumber(ARGV[4]), tonumber(ARGV[5]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[2]), 1)
if refused then
  -- Not recorded after all: the state stays presentable once there is room.
  redis.call('DEL', KEYS[1])
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {refused == 'store' and 'full' or 'share', first[2] or ''}
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[6])
local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[3], last[2])
return 1`;

/** Longest id accepted; the module's ids are 43 characters (base64url SHA-256). */
const MAX_ID_LENGTH = 512;

/**
 * A {@link ConsumedStateStore} on Redis, shared by every instance of a fleet: one atomic
 * `SET <prefix>consumed:<id> 1 PX <time left> NX` per presentation, so of any number of concurrent
 * presentations on any number of instances exactly one wins. The record expires with the state.
 * Chosen automatically when the module's `redis` option is set and no other store is given.
 *
 * It fails closed and fast: while the client is disconnected a presentation is refused at once
 * (`unavailable`), an answer that does not come within `commandTimeoutMs` refuses it (`timeout`),
 * and an error reply refuses it (`rejected <CODE>`) — each a {@link ConsumedStateStoreError},
 * never `true`. A timed-out `SET` may still reach Redis later, spending the state: the safe side.
 * The expiry is sent as time left (`PX`), so Redis's clock need not agree with the app's.
 *
 * @example
 * ```ts
 * new RedisConsumedStateStore(new Redis(process.env.REDIS_URL), { keyPrefix: 'billing-mcp:' });
 * ```
 * @publicApi
 */
export class RedisConsumedStateStore implements ConsumedStateStore {
  private readonly keyPrefix: string;
  private readonly commandTimeoutMs: number;
  private readonly now: () => number;
  private readonly limits: ShareLimits;
  private readonly waitForReplicas: { replicas: number; timeoutMs: number } | undefined;

  constructor(
    private readonly client: Pick<McpRedisClient, 'status' | 'set'> &
      Partial<Pick<McpRedisClient, 'eval' | 'call' | 'isCluster'>>,
    options: RedisConsumedStateStoreOptions = {},
  ) {
    this.keyPrefix = adapterKeyPrefix(
      client,
      options.keyPrefix,
      DEFAULT_REDIS_KEY_PREFIX,
      'RedisConsumedStateStore',
    );
    this.commandTimeoutMs = options.commandTimeoutMs ?? 1_000;
    this.now = options.now ?? Date.now;
    if (!Number.isSafeInteger(this.commandTimeoutMs) || this.commandTimeoutMs <= 0)
      throw new RangeError('commandTimeoutMs must be a positive integer');
    const maxEntries = options.maxEntries ?? 1_000_000;
    const perOwner = options.maxEntriesPerOwner ?? maxEntries;
    if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0)
      throw new RangeError('maxEntries must be a positive integer');
    if (!Number.isSafeInteger(perOwner) || perOwner <= 0)
      throw new RangeError('maxEntriesPerOwner must be a positive integer');
    this.limits = { capacity: maxEntries, perPartition: Math.min(perOwner, maxEntries) };
    this.waitForReplicas = checkedReplicaWait(
      options.waitForReplicas,
      this.commandTimeoutMs,
      client,
    );
  }

  async consume(id: string, expiresAt: number, owner = ''): Promise<boolean> {
    if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH)
      throw new ConsumedStateStoreError('invalid_id');
    const now = this.now();
    const timeLeftMs = Math.ceil(expiresAt - now);
    if (!(timeLeftMs > 0)) return false;
    if (!Number.isSafeInteger(timeLeftMs)) throw new ConsumedStateStoreError('invalid_expiry');
    const key = `${this.keyPrefix}consumed:${id}`;
    const client = this.client;
    let reply: unknown;
    try {
      reply = await boundedRedisCommand(client, this.commandTimeoutMs, () =>
        typeof client.eval === 'function'
          ? client.eval(
              CONSUME,
              3,
              key,
              `${this.keyPrefix}consumed~all`,
              `${this.keyPrefix}consumed~by:${owner}`,
              timeLeftMs,
              Math.ceil(expiresAt),
              now,
              this.limits.capacity,
              this.limits.perPartition,
              id,
            )
          : // A client without EVAL: one-time still, without the shares.
            client.set(key, '1', 'PX', timeLeftMs, 'NX'),
      );
    } catch (error) {
      if (error instanceof RedisCommandError) throw new ConsumedStateStoreError(error.reason);
      throw error;
    }
    if (Array.isArray(reply)) {
      const [reason, first] = reply.map(String) as [string, string];
      throw new ConsumedStateStoreError(
        reason,
        retryAfterMs(first === '' ? undefined : Number(first), now),
      );
    }
    const recorded = reply === 'OK' || Number(reply) === 1;
    if (recorded && this.waitForReplicas) await this.replicated(this.waitForReplicas);
    return recorded;
  }

  /** Refuses (`not replicated`) unless `replicas` acknowledge this connection's writes in time. */
  private async replicated({ replicas, timeoutMs }: { replicas: number; timeoutMs: number }) {
    const client = this.client as Pick<McpRedisClient, 'status' | 'call'>;
    let acknowledged: unknown;
    try {
      acknowledged = await boundedRedisCommand(client, this.commandTimeoutMs, () =>
        client.call('WAIT', replicas, timeoutMs),
      );
    } catch (error) {
      if (error instanceof RedisCommandError) throw new ConsumedStateStoreError(error.reason);
      throw error;
    }
    if (Number(acknowledged) < replicas) throw new ConsumedStateStoreError('not replicated');
  }
}

function checkedReplicaWait(
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
