import { Logger } from '@nestjs/common';
import { SHARE_REFUSAL_LUA } from '../../../kit/fair-share';
import { sha256Base64Url } from '../../../kit/sha256';
import { SessionCapacityError } from './session-capacity.error';
import type { McpSessionRecord } from './session-record';
import type { SessionCreationLimits, SessionStore } from './session-store.interface';
import {
  DEADLINE_LUA,
  RedisClock,
  adapterKeyPrefix,
  type McpRedisClient,
  type RecordIntegrity,
} from '../../../extension-api';

/** Options of {@link RedisSessionStore}. @publicApi */
export interface RedisSessionStoreOptions {
  /** Prefix of every key. Default `nestjs-mcp:session:`. */
  keyPrefix?: string;
  /**
   * Authenticates every record under the module's keyring (the module passes its own); a record
   * that fails the check is treated as missing and logged. Without it records are plain JSON.
   * @internal
   */
  integrity?: RecordIntegrity;
  /**
   * How long a write may take, in ms: one that reaches Redis later (a paused server, a command
   * resent on reconnection) changes nothing and rejects (`late`), so a request told that its
   * change failed never finds it applied afterwards. Default 1,000.
   */
  commandTimeoutMs?: number;
}

/** Domain of the records' integrity tags. */
const RECORD_DOMAIN = 'session-record';

// Each session is a hash (`v` its version, `d` its JSON, `t` its tag) under a digest of its id, so
// the key space never shows a usable session id. Two sorted sets, all sessions and one per
// partition, hold the same digests scored by expiry, for the limits; each lives as long as its
// latest member. Every write gets its caller's deadline (on Redis's clock) last, and changes
// nothing past it ('late').
const EXPIRE_SET = `
${DEADLINE_LUA}
local function expireSet(key)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIREAT', key, last[2]) end
end`;
const CREATE = `${EXPIRE_SET}
${SHARE_REFUSAL_LUA}
if past_deadline(ARGV[9]) then return 'late' end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[5])
local refused = share_refusal(tonumber(ARGV[6]), tonumber(ARGV[7]),
  redis.call('ZCARD', KEYS[3]), redis.call('ZCARD', KEYS[2]), 1)
if refused == 'store' then return -1 end
if refused then return -2 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2], 't', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[8])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[8])
expireSet(KEYS[2])
expireSet(KEYS[3])
return 1`;
const REPLACE = `${EXPIRE_SET}
if past_deadline(ARGV[7]) then return 'late' end
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3], 't', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], 'XX', ARGV[5], ARGV[6])
redis.call('ZADD', KEYS[3], 'XX', ARGV[5], ARGV[6])
expireSet(KEYS[2])
expireSet(KEYS[3])
return 1`;
const DELETE = `${DEADLINE_LUA}
if past_deadline(ARGV[2]) then return 'late' end
local deleted = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return deleted`;

/**
 * A {@link SessionStore} on Redis, for a fleet behind a load balancer: creation (with its limits),
 * compare-and-set and deletion run as Lua scripts, and each session's key expires with the
 * session. Records are authenticated under the keyring when the module creates the store.
 *
 * @publicApi
 */
export class RedisSessionStore implements SessionStore {
  private readonly logger = new Logger('McpSessions');
  private readonly prefix: string;
  private integrity: RecordIntegrity | undefined;
  private readonly commandTimeoutMs: number;
  private readonly clock: RedisClock;

  constructor(
    private readonly client: Pick<McpRedisClient, 'call'>,
    options: RedisSessionStoreOptions = {},
  ) {
    this.prefix = adapterKeyPrefix(
      client,
      options.keyPrefix,
      'nestjs-mcp:session:',
      'RedisSessionStore',
    );
    this.integrity = options.integrity;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 1_000;
    if (!Number.isSafeInteger(this.commandTimeoutMs) || this.commandTimeoutMs <= 0)
      throw new RangeError('RedisSessionStore: commandTimeoutMs must be a positive integer');
    this.clock = new RedisClock(() => client.call('TIME'));
  }

  /**
   * Tags and checks every record from now on under the module's keyring: the module calls this
   * once at startup for an instance it did not construct (`new RedisSessionStore(client)` handed in by the
   * application); one constructed with its own integrity keeps that.
   * @internal
   */
  authenticateRecordsWith(integrity: RecordIntegrity): void {
    this.integrity ??= integrity;
  }

  async create(record: McpSessionRecord, limits: SessionCreationLimits): Promise<void> {
    const data = JSON.stringify(record);
    const member = sha256Base64Url(record.sessionId);
    const created = await this.runScript(
      CREATE,
      member,
      record.partition,
      record.version,
      data,
      this.tag(member, record.version, data),
      record.expiresAt,
      Date.now(),
      limits.maxSessions,
      limits.maxPerPartition,
      member,
    );
    if (created === -2) throw new SessionCapacityError(limits.maxPerPartition, 'caller');
    if (created === -1) throw new SessionCapacityError(limits.maxSessions);
    if (created !== 1) throw new Error('Session id already exists');
  }

  async get(sessionId: string): Promise<McpSessionRecord | undefined> {
    const member = sha256Base64Url(sessionId);
    const stored = await this.client.call('HMGET', this.key(member), 'v', 'd', 't');
    const [version, data, tag] = (Array.isArray(stored) ? stored : []).map((value: unknown) =>
      typeof value === 'string' || Buffer.isBuffer(value) ? value.toString() : undefined,
    );
    if (version === undefined || data === undefined) return undefined;
    if (this.integrity && !this.integrity.verify(tag, RECORD_DOMAIN, [member, version, data])) {
      // Written by something without the keyring's keys, or edited: not ours to serve.
      this.logger.warn(
        `Session record ${member.slice(0, 12)}… failed its integrity check; ignored`,
      );
      return undefined;
    }
    let record: McpSessionRecord;
    try {
      record = JSON.parse(data) as McpSessionRecord;
    } catch {
      return undefined;
    }
    if (record.sessionId !== sessionId || String(record.version) !== version) return undefined;
    return record.expiresAt > Date.now() ? record : undefined;
  }

  async replace(next: McpSessionRecord, expectedVersion: number): Promise<boolean> {
    if (next.version !== expectedVersion + 1 || next.expiresAt <= Date.now()) return false;
    const data = JSON.stringify(next);
    const member = sha256Base64Url(next.sessionId);
    const replaced = await this.runScript(
      REPLACE,
      member,
      next.partition,
      expectedVersion,
      next.version,
      data,
      this.tag(member, next.version, data),
      next.expiresAt,
      member,
    );
    return replaced === 1;
  }

  async delete(sessionId: string): Promise<boolean> {
    const record = await this.get(sessionId);
    if (!record) return false;
    const member = sha256Base64Url(sessionId);
    return (await this.runScript(DELETE, member, record.partition, member)) === 1;
  }

  /**
   * Runs a session script on its three keys (the record, the index of all sessions, the caller's
   * index) with `args` and the command deadline; its numeric reply, once known to be in time.
   */
  private async runScript(
    script: string,
    member: string,
    partition: string,
    ...args: (string | number)[]
  ): Promise<number> {
    const keys = [this.key(member), this.allKey(), this.partitionKey(partition)];
    return Number(
      await this.clock.evalInTime(this.client, script, keys, args, this.commandTimeoutMs),
    );
  }

  private tag(member: string, version: number, data: string): string {
    return this.integrity ? this.integrity.tag(RECORD_DOMAIN, [member, String(version), data]) : '';
  }

  private key(member: string): string {
    return `${this.prefix}${member}`;
  }

  private allKey(): string {
    return `${this.prefix}all`;
  }

  /** The partition's index; a digest, as a partition may be long (and is no one's business). */
  private partitionKey(partition: string): string {
    return `${this.prefix}by-caller:${sha256Base64Url(partition)}`;
  }
}
