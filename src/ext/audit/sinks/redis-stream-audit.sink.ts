import { redisScript, runRedisScript, type McpRedisConnection } from '../../../extension-api';
import type { AuditRecord } from '../audit-record';
import { recordJson } from '../audit-chain';
import { AuditChainLostError, type AuditChainPosition, type AuditSink } from './audit-sink';

/**
 * Appends a batch to the fleet's stream and moves this instance's head, in one step, only where
 * the chain is: when the stored head is the batch's `previous_hash`, all of it; when it is the
 * head after one of the batch's records (an attempt that timed out on the client but ran), the
 * rest; otherwise nothing (another writer, or a Redis that lost the chain). Heads are
 * `<seq> <hash>`. KEYS: stream, heads. ARGV: instance, expected head ('' for none), n, the n heads
 * after each record, the n records.
 */
const APPEND = redisScript(`
local current = redis.call('HGET', KEYS[2], ARGV[1])
local n = tonumber(ARGV[3])
local from = nil
if (current or '') == ARGV[2] then from = 1 end
if not from and current then
  for i = 1, n do
    if ARGV[3 + i] == current then from = i + 1 break end
  end
end
if not from then return redis.error_reply('AUDIT_CHAIN_MOVED the chain head moved') end
for i = from, n do redis.call('XADD', KEYS[1], '*', 'r', ARGV[3 + n + i]) end
if from <= n then redis.call('HSET', KEYS[2], ARGV[1], ARGV[3 + n]) end
return n - from + 1
`);

/**
 * The default stream key: `{<redis.keyPrefix>audit}`, the prefix's own hash tag taken out, so it
 * is the same on one Redis and on a cluster (`{nestjs-mcp:audit}`) and the stream and its heads
 * share one slot. @internal
 */
export function defaultAuditStream(redis: McpRedisConnection): string {
  return `{${redis.key('audit').replace(/[{}]/g, '')}}`;
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
    const first = Number(position.lastSeq) - records.length + 1;
    const heads = records.map((record, at) => `${first + at} ${record.event_hash}`);
    const expected = position.previousHash === null ? '' : `${first - 1} ${position.previousHash}`;
    await this.redis
      .run((client) =>
        runRedisScript(
          client,
          APPEND,
          2,
          this.stream,
          this.headsKey,
          position.instance,
          expected,
          records.length,
          ...heads,
          ...records.map(recordJson),
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
