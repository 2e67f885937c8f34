import type { McpRedisConnection } from '../../../extension-api';
import type { AuditRecord } from '../audit-record';
import { AuditChainLostError, type AuditChainPosition, type AuditSink } from './audit-sink';

/**
 * Appends a batch to the fleet's stream and moves this instance's head, in one step: refused
 * (nothing written) unless the head stored for the instance is the batch's `previous_hash`, so
 * two writers can never fork one chain. Heads are `<seq> <hash>`.
 * KEYS: stream, heads. ARGV: instance, expected head hash ('' for none), new head, records…
 */
const APPEND_LUA = `
local current = redis.call('HGET', KEYS[2], ARGV[1])
local hash = ''
if current then hash = string.match(current, ' (%x+)$') or '' end
if hash ~= ARGV[2] then return redis.error_reply('AUDIT_CHAIN_MOVED the chain head moved') end
for i = 4, #ARGV do redis.call('XADD', KEYS[1], '*', 'r', ARGV[i]) end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
return #ARGV - 3
`;

/**
 * The default stream key under the module's Redis prefix: hash-tagged (the prefix's own tag, or
 * the whole key), so the stream and its heads share one cluster slot. @internal
 */
export function defaultAuditStream(redis: McpRedisConnection): string {
  const key = redis.key('audit');
  return /\{[^}]+\}/.test(key) ? key : `{${key}}`;
}

/**
 * A fleet's audit trail in one Redis stream (field `r`: the record's JSON), one chain per instance,
 * each record hashed in its process (Redis scripts have no SHA-256) and appended with its
 * instance's head by one script; `<stream>:heads` holds every instance's head, which checkpoints
 * sign. Nothing is trimmed: an audit trail never drops silently (bound it by retention outside).
 * @internal
 */
export class RedisStreamAuditSink implements AuditSink {
  private readonly headsKey: string;

  constructor(
    private readonly redis: McpRedisConnection,
    private readonly stream: string,
  ) {
    this.headsKey = `${stream}:heads`;
  }

  async write(records: readonly AuditRecord[], position: AuditChainPosition): Promise<void> {
    const last = records[records.length - 1];
    await this.redis
      .run((client) =>
        client.eval(
          APPEND_LUA,
          2,
          this.stream,
          this.headsKey,
          position.instance,
          position.previousHash ?? '',
          `${position.lastSeq} ${last.event_hash}`,
          ...records.map((record) => JSON.stringify(record)),
        ),
      )
      .catch((error: unknown) => {
        if (String((error as Error)?.message).includes('AUDIT_CHAIN_MOVED'))
          throw new AuditChainLostError("the stream lost this instance's chain head");
        throw error;
      });
  }

  async heads(): Promise<Record<string, { seq: string; hash: string }>> {
    const flat = (await this.redis.run((client) =>
      client.call('HGETALL', this.headsKey),
    )) as string[];
    const heads: Record<string, { seq: string; hash: string }> = {};
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const [seq, hash] = flat[index + 1].split(' ');
      if (seq && hash) heads[flat[index]] = { seq, hash };
    }
    return heads;
  }
}
