import { boundedRedisCommand } from '../../redis/bounded-redis-command';
import type { McpRedisClient } from '../../redis/mcp-redis-client';
import { RedisCommandError } from '../../redis/redis-command.error';
import { DEFAULT_REDIS_KEY_PREFIX } from '../../redis/redis-options.resolver';
import { ConsumedStateStoreError } from './consumed-state-store.error';
import type { ConsumedStateStore } from './consumed-state-store.interface';

/** Options of {@link RedisConsumedStateStore}. @publicApi */
export interface RedisConsumedStateStoreOptions {
  /** Prefix of its keys, `<keyPrefix>consumed:<id>`. Default `nestjs-mcp:`. */
  keyPrefix?: string;
  /** Longest wait for Redis's answer, in ms, before the presentation is refused (`timeout`). Default 1,000. */
  commandTimeoutMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

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

  constructor(
    private readonly client: McpRedisClient,
    options: RedisConsumedStateStoreOptions = {},
  ) {
    this.keyPrefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 1_000;
    this.now = options.now ?? Date.now;
    if (!Number.isSafeInteger(this.commandTimeoutMs) || this.commandTimeoutMs <= 0)
      throw new RangeError('commandTimeoutMs must be a positive integer');
  }

  async consume(id: string, expiresAt: number): Promise<boolean> {
    if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH)
      throw new ConsumedStateStoreError('invalid_id');
    const timeLeftMs = Math.ceil(expiresAt - this.now());
    if (!(timeLeftMs > 0)) return false;
    if (!Number.isSafeInteger(timeLeftMs)) throw new ConsumedStateStoreError('invalid_expiry');
    try {
      const reply = await boundedRedisCommand(this.client, this.commandTimeoutMs, () =>
        this.client.set(`${this.keyPrefix}consumed:${id}`, '1', 'PX', timeLeftMs, 'NX'),
      );
      return reply === 'OK';
    } catch (error) {
      if (error instanceof RedisCommandError) throw new ConsumedStateStoreError(error.reason);
      throw error;
    }
  }
}
