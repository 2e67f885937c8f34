import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { boundedRedisCommand } from '../../../redis/bounded-redis-command';
import type { McpRedisClient } from '../../../redis/mcp-redis-client';
import { RedisClock } from '../../../redis/redis-clock';
import { RedisCommandError } from '../../../redis/redis-command.error';
import { RedisFollowUps } from '../../../redis/redis-follow-ups';
import { DEFAULT_REDIS_KEY_PREFIX } from '../../../redis/redis-options.resolver';
import { MIN_RETRY_AFTER_MS, retryAfterMs, type ShareLimits } from '../../../kit/fair-share';
import { ConsumedStateStoreError } from './consumed-state-store.error';
import type { ConsumedStateStore } from './consumed-state-store.interface';
import { adapterKeyPrefix } from '../../../redis/cluster-key-prefix';
import { CONSUME, RELEASE, SETTLE } from './redis-consumed-state.scripts';
import { runRedisScript, type RedisScript } from '../../../redis/redis-script';
import {
  checkedReplicaWait,
  type RedisConsumedStateStoreOptions,
} from './redis-consumed-state.options';

export type { RedisConsumedStateStoreOptions } from './redis-consumed-state.options';

/** Longest id accepted; the module's ids are 43 characters (base64url SHA-256). */
const MAX_ID_LENGTH = 512;
/**
 * How long a claim whose instance could neither confirm nor release it (the instance died, or
 * Redis stayed away) holds its state in doubt before it counts as spent.
 * @internal
 */
export const CLAIM_LEASE_MS = 60_000;
/** First wait before a presentation asks again about a state another one holds in doubt. */
const FIRST_DOUBT_WAIT_MS = 5;

/** One presentation's claim: its keys, and the attempt that names it in Redis. */
interface Claim {
  readonly keys: readonly [string, string, string];
  readonly id: string;
  readonly attempt: string;
  /** When the caller gives up waiting, in ms on this process's clock. */
  readonly givesUpAt: number;
}

/**
 * A {@link ConsumedStateStore} on Redis, shared by every instance of a fleet: one atomic script
 * per presentation claims `<prefix>consumed:<id>`, so of any number of concurrent presentations on
 * any number of instances exactly one wins. The record expires with the state. Chosen
 * automatically when the module's `redis` option is set and no other store is given.
 *
 * It fails closed and fast: while the client is disconnected a presentation is refused at once
 * (`unavailable`), an answer that does not come within `commandTimeoutMs` refuses it (`timeout`),
 * and an error reply refuses it (`rejected <CODE>`) — each a {@link ConsumedStateStoreError},
 * never `true`, answered `-32000 Server busy` with nothing consumed. Each claim carries a deadline
 * Redis checks on its own clock, so a claim that reaches Redis after its caller gave up (a paused
 * server, a resent command) changes nothing; one Redis applied whose reply was lost is released
 * once Redis answers again, so the client's retry is not refused as a replay. While a claim is in
 * doubt so, another presentation of the state waits for it (up to `commandTimeoutMs`), then is
 * refused `in doubt`. The expiry is sent as time left (`PX`) and the deadline on Redis's clock
 * (measured), so Redis's clock need not agree with the app's.
 *
 * @example
 * ```ts
 * new RedisConsumedStateStore(new Redis(process.env.REDIS_URL), { keyPrefix: 'billing-mcp:' });
 * ```
 * @publicApi
 */
export class RedisConsumedStateStore implements ConsumedStateStore {
  private readonly logger = new Logger('McpRequestState');
  private readonly keyPrefix: string;
  private readonly commandTimeoutMs: number;
  private readonly now: () => number;
  private readonly limits: ShareLimits;
  private readonly waitForReplicas: { replicas: number; timeoutMs: number } | undefined;
  private readonly clock: RedisClock | undefined;
  private readonly followUps: RedisFollowUps;

  constructor(
    private readonly client: Pick<McpRedisClient, 'status' | 'set'> &
      Partial<Pick<McpRedisClient, 'eval' | 'evalsha' | 'call' | 'isCluster'>>,
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
    const evaluate = client.eval?.bind(client);
    this.clock = evaluate
      ? new RedisClock(() => this.bounded(() => evaluate("return redis.call('TIME')", 0)), this.now)
      : undefined;
    this.followUps = new RedisFollowUps(this.logger, this.now);
  }

  consume(id: string, expiresAt: number, owner = ''): Promise<boolean> {
    return this.present(id, expiresAt, owner, false);
  }

  /** {@link consume} for an id never presented again after a failed attempt: one write, no doubt. */
  record(id: string, expiresAt: number, owner = ''): Promise<boolean> {
    return this.present(id, expiresAt, owner, true);
  }

  private async present(
    id: string,
    expiresAt: number,
    owner: string,
    final: boolean,
  ): Promise<boolean> {
    if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH)
      throw new ConsumedStateStoreError('invalid_id');
    const now = this.now();
    const timeLeftMs = Math.ceil(expiresAt - now);
    if (!(timeLeftMs > 0)) return false;
    if (!Number.isSafeInteger(timeLeftMs)) throw new ConsumedStateStoreError('invalid_expiry');
    const key = `${this.keyPrefix}consumed:${id}`;
    if (!this.clock) {
      // A client without EVAL: one-time still, without the shares or the deadline.
      const client = this.client;
      const reply = await this.bounded(() => client.set(key, '1', 'PX', timeLeftMs, 'NX'));
      return reply === 'OK';
    }
    const deadline = await this.clock.deadline(this.commandTimeoutMs);
    const claim: Claim = {
      keys: [key, `${this.keyPrefix}consumed~all`, `${this.keyPrefix}consumed~by:${owner}`],
      id,
      attempt: final ? '' : randomBytes(9).toString('base64url'),
      givesUpAt: this.now() + this.commandTimeoutMs,
    };
    for (let wait = FIRST_DOUBT_WAIT_MS; ; wait *= 2) {
      const reply = await this.claim(claim, deadline, timeLeftMs, expiresAt, now);
      if (!Array.isArray(reply)) {
        if (Number(reply) !== 1) return false;
        await this.claimed(claim);
        return true;
      }
      const [reason, detail] = reply.map(String) as [string, string];
      if (reason === 'late') {
        this.clock.late();
        throw new ConsumedStateStoreError('late');
      }
      if (reason !== 'doubt')
        throw new ConsumedStateStoreError(
          reason,
          retryAfterMs(detail === '' ? undefined : Number(detail), now),
        );
      // Another presentation's claim is in doubt: its instance settles it in a moment, unless
      // Redis is away from it (then this one is told to retry).
      if (this.now() + wait >= claim.givesUpAt)
        throw new ConsumedStateStoreError('in doubt', MIN_RETRY_AFTER_MS);
      await sleep(wait);
    }
  }

  /** Runs the claim script; a claim that may have been applied unanswered is released later. */
  private async claim(
    claim: Claim,
    deadline: number,
    timeLeftMs: number,
    expiresAt: number,
    now: number,
  ): Promise<unknown> {
    try {
      return await this.bounded(
        () =>
          this.evaluate(
            CONSUME,
            3,
            ...claim.keys,
            timeLeftMs,
            Math.ceil(expiresAt),
            now,
            this.limits.capacity,
            this.limits.perPartition,
            claim.id,
            claim.attempt,
            deadline,
            CLAIM_LEASE_MS,
          ),
        Math.max(1, claim.givesUpAt - this.now()),
      );
    } catch (error) {
      // A final claim is never presented again: one that may have landed stays spent.
      if (error instanceof ConsumedStateStoreError && error.maybeApplied && claim.attempt !== '')
        this.release(claim);
      throw error;
    }
  }

  /** A script of this store, by EVALSHA (only once the clock found EVAL, so it is there). */
  private evaluate(
    script: RedisScript,
    numKeys: number,
    ...args: (string | number)[]
  ): Promise<unknown> {
    const client = this.client as Pick<McpRedisClient, 'eval'> &
      Partial<Pick<McpRedisClient, 'evalsha'>>;
    return runRedisScript(client, script, numKeys, ...args);
  }

  /**
   * The claim is this presentation's: confirmed (after the replicas, if asked), or released; a
   * final claim is spent already.
   */
  private async claimed(claim: Claim): Promise<void> {
    const final = claim.attempt === '';
    if (this.waitForReplicas) {
      try {
        await this.replicated(this.waitForReplicas);
      } catch (error) {
        // The caller is told to retry and the method does not run: the state is presentable again.
        if (!final) this.release(claim);
        throw error;
      }
    }
    if (final) return;
    this.followUps.add(
      `settle ${claim.keys[0]}`,
      () => this.followUp(() => this.evaluate(SETTLE, 1, claim.keys[0], claim.attempt)),
      claim.givesUpAt + CLAIM_LEASE_MS,
    );
  }

  private release(claim: Claim): void {
    this.followUps.add(
      `release ${claim.keys[0]}`,
      () => this.followUp(() => this.evaluate(RELEASE, 3, ...claim.keys, claim.attempt, claim.id)),
      claim.givesUpAt + CLAIM_LEASE_MS,
    );
  }

  /** A follow-up write; none once the client was closed for good (the app shut down). */
  private async followUp(write: () => Promise<unknown>): Promise<void> {
    if (this.client.status !== 'end') await this.bounded(write);
  }

  /** Refuses (`not replicated`) unless `replicas` acknowledge this connection's writes in time. */
  private async replicated({ replicas, timeoutMs }: { replicas: number; timeoutMs: number }) {
    const client = this.client as Pick<McpRedisClient, 'status' | 'call'>;
    const acknowledged = await this.bounded(() => client.call('WAIT', replicas, timeoutMs));
    if (Number(acknowledged) < replicas) throw new ConsumedStateStoreError('not replicated');
  }

  /** One command through {@link boundedRedisCommand}; its failure as a ConsumedStateStoreError. */
  private async bounded<T>(
    command: () => Promise<T>,
    timeoutMs = this.commandTimeoutMs,
  ): Promise<T> {
    try {
      return await boundedRedisCommand(this.client, timeoutMs, command);
    } catch (error) {
      if (error instanceof RedisCommandError)
        throw new ConsumedStateStoreError(error.reason, undefined, error.maybeApplied);
      throw error;
    }
  }
}
