import type { McpRedisConnection } from '../../redis/mcp-redis.connection';
import type { RecordIntegrity } from '../record-integrity';
import { decodeDesired, encodeDesired, type DesiredKeyring } from './fleet-records';

/**
 * Sets KEYS[1] and KEYS[2] (the record and its high-water copy) to ARGV[3] only while they are
 * still ARGV[1] and ARGV[2] ('' for absent): the records' one writer.
 */
const COMPARE_AND_SET_BOTH = `if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] then return 0 end
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[3])
return 1`;

/** What one read of the fleet's keyring found in Redis. @internal */
export interface DesiredRead {
  /** The texts read, the record's and the copy's (`null` when absent), for compare-and-set. */
  readonly raw: readonly [string | null, string | null];
  /** The record, when present and authentic. */
  readonly record: DesiredKeyring | undefined;
  /** The high-water copy, when present and authentic. */
  readonly copy: DesiredKeyring | undefined;
}

/** Whether Redis holds neither the record nor its copy: the fleet has no keyring of its own (yet, or again). @internal */
export function isAbsent(read: DesiredRead): boolean {
  return read.raw[0] === null && read.raw[1] === null;
}

/** Whether something is in Redis but none of it verifies under this keyring. @internal */
export function isUnverifiable(read: DesiredRead): boolean {
  return !isAbsent(read) && !read.record && !read.copy;
}

/** The record with the highest `seq` of those given (the first of equals). @internal */
export function newestOf(
  ...candidates: (DesiredKeyring | undefined)[]
): DesiredKeyring | undefined {
  let newest: DesiredKeyring | undefined;
  for (const candidate of candidates)
    if (candidate && (!newest || candidate.seq > newest.seq)) newest = candidate;
  return newest;
}

/**
 * The fleet's desired keyring in Redis: the record every instance follows, and a high-water copy
 * written with it in one script. A record written back from before (a replay, a restore of an
 * older backup of one key) is older than the copy, or than what a live instance applied, so it
 * is recognised as such and never applied. The two keys share the prefix's hash tag on a cluster.
 * @internal
 */
export class FleetDesiredRecord {
  /** The Redis key of the record (for messages). */
  readonly key: string;
  private readonly copyKey: string;

  constructor(
    private readonly redis: McpRedisConnection,
    private readonly integrity: RecordIntegrity,
  ) {
    this.key = redis.key('keyring', 'desired');
    this.copyKey = redis.key('keyring', 'desired-high-water');
  }

  async read(): Promise<DesiredRead> {
    const [record, copy] = (await this.redis.run((client) =>
      client.call('MGET', this.key, this.copyKey),
    )) as [string | null, string | null];
    return {
      raw: [record, copy],
      record: record === null ? undefined : decodeDesired(record, this.integrity),
      copy: copy === null ? undefined : decodeDesired(copy, this.integrity),
    };
  }

  /** Writes `next` as the record and its copy, unless either changed since `read`. */
  async write(read: DesiredRead, next: DesiredKeyring): Promise<boolean> {
    const written = await this.redis.run((client) =>
      client.eval(
        COMPARE_AND_SET_BOTH,
        2,
        this.key,
        this.copyKey,
        read.raw[0] ?? '',
        read.raw[1] ?? '',
        encodeDesired(next, this.integrity),
      ),
    );
    return Number(written) === 1;
  }

  /** Both keys, as an operator deletes them to start the fleet's keyring afresh. */
  get keys(): readonly [string, string] {
    return [this.key, this.copyKey];
  }
}
