import { createHash } from 'node:crypto';
import { clip } from '../../util/clip';
import { StateHandleRepositoryError } from './state-handle-repository.error';
import type { StateHandleRecord, StateHandleRepository } from './state-handle-repository.interface';

/**
 * The commands {@link RedisStateHandleRepository} needs; an `ioredis` `Redis` client (or `Cluster`,
 * see the key prefix) provides them. Structural, so this package's types do not require ioredis.
 *
 * @publicApi
 */
export interface RedisStateHandleClient {
  evalsha(sha1: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
}

/** Options of {@link RedisStateHandleRepository}. @publicApi */
export interface RedisStateHandleRepositoryOptions {
  /** A connected client, owned (and closed) by the application. */
  client: RedisStateHandleClient;
  /**
   * Prefix of every key, e.g. `"orders:mcp:handle:"`. On Redis Cluster put a hash tag in it
   * (`"{mcp-handles}:"`): a redemption moves a record between two keys in one script. Default
   * `"nestjs-mcp:handle:"`.
   */
  keyPrefix?: string;
  /** Longest wait for Redis per operation, in ms; then the call fails with -32603 (`timeout`). Default 2,000. */
  timeoutMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

// A record is a hash (b = binding, d = data, e = expiry, r = round) that Redis expires at e.
const PUT = `redis.call('HSET', KEYS[1], 'b', ARGV[1], 'd', ARGV[2], 'e', ARGV[3], 'r', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
return 1`;

// Compare-and-swap in one step: a foreign binding changes nothing; RENAME keeps the key's expiry.
const REDEEM = `local f = redis.call('HMGET', KEYS[1], 'b', 'd', 'e', 'r')
if f[1] ~= ARGV[1] then return false end
if tonumber(f[3]) <= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  return false
end
redis.call('RENAME', KEYS[1], KEYS[2])
return {f[2], f[3], f[4]}`;

interface Script {
  readonly source: string;
  readonly sha1: string;
}

function script(source: string): Script {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

const SCRIPTS = { put: script(PUT), redeem: script(REDEEM) };

/**
 * A {@link StateHandleRepository} on Redis, shared by every instance of a fleet: each operation is
 * one script (one round trip, atomic on the server). Records expire with the flow (`PEXPIREAT`).
 * When Redis does not answer within `timeoutMs`, or answers with an error, the operation rejects
 * with {@link StateHandleRepositoryError} (`timeout`, `unavailable`), so the call fails closed with
 * `-32603`; a redemption that reached Redis after its caller gave up still consumed the handle,
 * and the client starts the flow again.
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   stateHandleRepository: new RedisStateHandleRepository({ client: new Redis(process.env.REDIS_URL), keyPrefix: 'orders:handle:' }),
 * });
 * ```
 * @publicApi
 */
export class RedisStateHandleRepository implements StateHandleRepository {
  private readonly client: RedisStateHandleClient;
  private readonly keyPrefix: string;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(options: RedisStateHandleRepositoryOptions) {
    this.client = options.client;
    this.keyPrefix = options.keyPrefix ?? 'nestjs-mcp:handle:';
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.now = options.now ?? Date.now;
    if (typeof this.client?.evalsha !== 'function' || typeof this.client.del !== 'function')
      throw new TypeError('client must be an ioredis client');
    if (typeof this.keyPrefix !== 'string') throw new TypeError('keyPrefix must be a string');
    if (!Number.isSafeInteger(this.timeoutMs) || this.timeoutMs <= 0)
      throw new RangeError('timeoutMs must be a positive integer');
  }

  async put(handle: string, record: StateHandleRecord): Promise<void> {
    await this.run(
      SCRIPTS.put,
      [this.keyOf(handle)],
      [record.binding, record.data, record.expiresAt, record.round],
    );
  }

  async redeem(
    handle: string,
    binding: string,
    replacement: string,
  ): Promise<StateHandleRecord | undefined> {
    const reply = await this.run(
      SCRIPTS.redeem,
      [this.keyOf(handle), this.keyOf(replacement)],
      [binding, this.now()],
    );
    if (reply === null) return undefined;
    if (!Array.isArray(reply) || reply.length !== 3 || reply.some((f) => typeof f !== 'string'))
      throw new StateHandleRepositoryError('bad_reply');
    const [data, expiresAt, round] = reply as [string, string, string];
    return { binding, data, expiresAt: Number(expiresAt), round: Number(round) };
  }

  async delete(handle: string): Promise<void> {
    await this.withTimeout(this.client.del(this.keyOf(handle)));
  }

  private keyOf(handle: string): string {
    return `${this.keyPrefix}${handle}`;
  }

  /** EVALSHA, and EVAL once when the server does not know the script yet (restarted, flushed). */
  private async run(
    { source, sha1 }: Script,
    keys: string[],
    args: (string | number)[],
  ): Promise<unknown> {
    return this.withTimeout(
      this.client.evalsha(sha1, keys.length, ...keys, ...args).catch((error: unknown) => {
        if (error instanceof Error && error.message.startsWith('NOSCRIPT'))
          return this.client.eval(source, keys.length, ...keys, ...args);
        throw error;
      }),
    );
  }

  private withTimeout<T>(operation: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new StateHandleRepositoryError('timeout')), this.timeoutMs);
    });
    // The command may still settle after the timeout; its outcome is then nobody's concern.
    operation.catch(() => undefined);
    return Promise.race([
      operation.catch((error: unknown) => {
        throw error instanceof StateHandleRepositoryError
          ? error
          : new StateHandleRepositoryError(
              // Redis's own messages ("Connection is closed.") name no key or value.
              `unavailable: ${clip(error instanceof Error ? error.message : typeof error, 100)}`,
            );
      }),
      timeout,
    ]).finally(() => clearTimeout(timer));
  }
}
