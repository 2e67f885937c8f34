import { Logger } from '@nestjs/common';
import { type RecordIntegrity } from '../../../keyring/record-integrity';
import { retryAfterMs, type ShareLimits } from '../../../kit/fair-share';
import { loggableFailure } from '../../../redis/bounded-redis-command';
import type { McpRedisClient } from '../../../redis/mcp-redis-client';
import { LATE_REPLY, RedisClock } from '../../../redis/redis-clock';
import { handleShares } from './handle-shares';
import { SCRIPTS } from './redis-state-handle.scripts';
import { runRedisScript, type RedisScript } from '../../../redis/redis-script';
import { StateHandleRepositoryError } from './state-handle-repository.error';
import type { StateHandleRecord, StateHandleRepository } from './state-handle-repository.interface';
import { adapterKeyPrefix } from '../../../redis/cluster-key-prefix';

/** Options of {@link RedisStateHandleRepository}. @publicApi */
export interface RedisStateHandleRepositoryOptions {
  /**
   * Prefix of every key, e.g. `"orders:mcp:handle:"`. On Redis Cluster put a hash tag in it
   * (`"{mcp-handles}:"`): a redemption moves a record between two keys in one script. Default
   * `"nestjs-mcp:handle:"`.
   */
  keyPrefix?: string;
  /** Longest wait for Redis per operation, in ms; then the call fails with -32000 (`timeout`). Default 2,000. */
  commandTimeoutMs?: number;
  /** Records the fleet holds at once; a new flow past it is refused (`full`). Default 100,000. */
  maxEntries?: number;
  /** Records one owner (caller) holds at once (`share`). Default: `maxEntries`. */
  maxEntriesPerOwner?: number;
  /** Bytes of data the records may take (plus 256 per record). Default 1,073,741,824 (1 GiB). */
  maxBytes?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Domain of a handle record's integrity tag. */
const HANDLE_RECORD = 'handle';
/** What a record costs Redis besides its data: the hash, its fields and the index entries. */
const RECORD_OVERHEAD_BYTES = 256;

/**
 * A {@link StateHandleRepository} on Redis, shared by every instance of a fleet: each operation is
 * one script (one round trip, atomic on the server). Records expire with the flow (`PEXPIREAT`).
 * When Redis does not answer within `commandTimeoutMs`, or answers with an error, the operation rejects
 * with {@link StateHandleRepositoryError} (`timeout`, `unavailable`, `rejected <CODE>`), so the
 * call fails closed with `-32000 Server busy` (`-32603` for an error that is no outage). Every
 * script carries its caller's deadline, checked on Redis's clock: one that reaches Redis after
 * its caller gave up changes nothing (`late`).
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   stateHandleRepository: new RedisStateHandleRepository(new Redis(process.env.REDIS_URL), { keyPrefix: 'orders:handle:' }),
 * });
 * ```
 * @publicApi
 */
export class RedisStateHandleRepository implements StateHandleRepository {
  private readonly logger = new Logger('McpRequestState');
  private readonly keyPrefix: string;
  private readonly commandTimeoutMs: number;
  private readonly now: () => number;
  private readonly count: ShareLimits;
  private readonly bytes: ShareLimits;
  private integrity: RecordIntegrity | undefined;
  private readonly clock: RedisClock;

  constructor(
    private readonly client: Pick<McpRedisClient, 'evalsha' | 'eval' | 'del'>,
    options: RedisStateHandleRepositoryOptions = {},
  ) {
    this.keyPrefix = adapterKeyPrefix(
      client,
      options.keyPrefix,
      'nestjs-mcp:handle:',
      'RedisStateHandleRepository',
    );
    this.commandTimeoutMs = options.commandTimeoutMs ?? 2_000;
    this.now = options.now ?? Date.now;
    if (typeof this.client?.evalsha !== 'function' || typeof this.client.del !== 'function')
      throw new TypeError('client must be an ioredis client');
    if (!Number.isSafeInteger(this.commandTimeoutMs) || this.commandTimeoutMs <= 0)
      throw new RangeError('commandTimeoutMs must be a positive integer');
    const maxEntries = options.maxEntries ?? 100_000;
    ({ count: this.count, bytes: this.bytes } = handleShares({
      maxEntries,
      maxEntriesPerOwner: options.maxEntriesPerOwner ?? maxEntries,
      maxBytes: options.maxBytes ?? 1_073_741_824,
    }));
    this.clock = new RedisClock(
      () => this.withTimeout(this.client.eval("return redis.call('TIME')", 0)),
      this.now,
    );
  }

  /**
   * Tags and checks every record from now on under the module's keyring: the module calls this
   * once at startup for an instance it did not construct (`new RedisStateHandleRepository(client)` handed in by the
   * application); one constructed with its own integrity keeps that.
   * @internal
   */
  authenticateRecordsWith(integrity: RecordIntegrity): void {
    this.integrity ??= integrity;
  }

  async put(handle: string, record: StateHandleRecord): Promise<void> {
    const owner = record.owner ?? '';
    const fields = [
      record.binding,
      record.data,
      String(record.expiresAt),
      String(record.round),
      owner,
    ];
    const reply = await this.run(
      SCRIPTS.put,
      [this.keyOf(handle)],
      [
        this.keyPrefix,
        handle,
        ...fields,
        this.integrity?.tag(HANDLE_RECORD, fields) ?? '',
        this.now(),
        RECORD_OVERHEAD_BYTES + Buffer.byteLength(record.data),
        this.count.capacity,
        this.count.perPartition,
        this.bytes.capacity,
        this.bytes.perPartition,
      ],
    );
    if (Array.isArray(reply)) {
      const [reason, firstExpiry] = reply.map(String) as [string, string];
      throw new StateHandleRepositoryError(
        reason,
        retryAfterMs(firstExpiry === '' ? undefined : Number(firstExpiry), this.now()),
      );
    }
  }

  async redeem(
    handle: string,
    binding: string,
    replacement: string,
  ): Promise<StateHandleRecord | undefined> {
    const reply = await this.run(
      SCRIPTS.redeem,
      [this.keyOf(handle), this.keyOf(replacement)],
      [this.keyPrefix, handle, replacement, binding, this.now()],
    );
    if (reply === null) return undefined;
    if (!Array.isArray(reply) || reply.length !== 5 || reply.some((f) => typeof f !== 'string'))
      throw new StateHandleRepositoryError('bad_reply');
    const [data, expiresAt, round, owner, tag] = reply as string[];
    if (
      this.integrity &&
      !this.integrity.verify(tag, HANDLE_RECORD, [binding, data, expiresAt, round, owner])
    ) {
      // Edited in Redis: treated as missing, and the copy it was moved to is gone with it.
      this.logger.warn(
        `A state handle record failed its integrity check and is treated as missing: ${this.keyOf(handle)}`,
      );
      await this.delete(replacement).catch(() => undefined);
      return undefined;
    }
    return {
      binding,
      data,
      expiresAt: Number(expiresAt),
      round: Number(round),
      ...(owner !== '' && { owner }),
    };
  }

  async delete(handle: string): Promise<void> {
    await this.run(SCRIPTS.delete, [this.keyOf(handle)], [this.keyPrefix, handle]);
  }

  private keyOf(handle: string): string {
    return `${this.keyPrefix}${handle}`;
  }

  /**
   * EVALSHA, and EVAL once when the server does not know the script yet (restarted, flushed), with
   * the caller's deadline last: a script that reaches Redis after the caller gave up (the command
   * waited in ioredis's offline queue, or was resent on reconnection) changes nothing.
   */
  private async run(
    script: RedisScript,
    keys: string[],
    args: (string | number)[],
  ): Promise<unknown> {
    const withDeadline = [...args, await this.clock.deadline(this.commandTimeoutMs)];
    const reply = await this.withTimeout(
      runRedisScript(this.client, script, keys.length, ...keys, ...withDeadline),
    );
    if (reply === LATE_REPLY) {
      this.clock.late();
      throw new StateHandleRepositoryError('late');
    }
    return reply;
  }

  private withTimeout<T>(operation: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, fail) => {
      timer = setTimeout(
        () => fail(new StateHandleRepositoryError('timeout')),
        this.commandTimeoutMs,
      );
    });
    // The command may still settle after the timeout; its outcome is then nobody's concern.
    operation.catch(() => undefined);
    return Promise.race([
      operation.catch((error: unknown) => {
        // Never Redis's own words, which may quote a script or a key: what failed, by its code.
        throw error instanceof StateHandleRepositoryError
          ? error
          : new StateHandleRepositoryError(loggableFailure(error));
      }),
      timeout,
    ]).finally(() => clearTimeout(timer));
  }
}
