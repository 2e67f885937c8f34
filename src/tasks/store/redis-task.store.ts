import type { McpTaskRecord } from './mcp-task.types';
import { TaskCapacityError } from './task-capacity.error';
import type { TaskCreationLimits, TaskStore } from './task-store.interface';
import { sha256Base64Url } from '../../util/sha256';

/**
 * The commands {@link RedisTaskStore} needs: an ioredis `Redis` or `Cluster` has them (`call` sends
 * any command). Kept structural so that ioredis stays an optional peer dependency.
 *
 * @publicApi
 */
export interface RedisCommandClient {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** Options of {@link RedisTaskStore}. @publicApi */
export interface RedisTaskStoreOptions {
  /** Prefix of every key. Default `nestjs-mcp:task:`. */
  keyPrefix?: string;
}

// Each task is a hash: `v` its version, `d` its JSON; the key expires when the task does. Each
// partition has a sorted set of its task ids scored by expiry, for the per-caller limit; it
// lives as long as its last task.
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local limit = tonumber(ARGV[5])
if limit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
  if redis.call('ZCARD', KEYS[2]) >= limit then return -1 end
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[6])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[2], last[2])
return 1`;
const REPLACE = `
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
return 1`;

/**
 * A {@link TaskStore} on Redis, for a fleet sharing tasks: creation and compare-and-set run as Lua
 * scripts (atomic on the server), and each task's key expires with the task. Give it your own
 * ioredis client; it never connects or closes one itself.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ tasks: { store: new RedisTaskStore(new Redis(process.env.REDIS_URL)) } })
 * ```
 * @publicApi
 */
export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;

  constructor(
    private readonly client: RedisCommandClient,
    options: RedisTaskStoreOptions = {},
  ) {
    this.prefix = options.keyPrefix ?? 'nestjs-mcp:task:';
  }

  async create(task: McpTaskRecord, limits: TaskCreationLimits = {}): Promise<void> {
    const limit = limits.maxPerPartition ?? 0;
    const created = Number(
      await this.client.call(
        'EVAL',
        CREATE,
        2,
        this.key(task.taskId),
        this.partitionKey(task.partition),
        task.version,
        JSON.stringify(task),
        task.expiresAt,
        Date.now(),
        limit,
        task.taskId,
      ),
    );
    if (created === -1) throw new TaskCapacityError(limit, 'caller');
    if (created !== 1) throw new Error('Task id already exists');
  }

  async get(taskId: string): Promise<McpTaskRecord | undefined> {
    const stored = await this.client.call('HGET', this.key(taskId), 'd');
    if (typeof stored !== 'string' && !Buffer.isBuffer(stored)) return undefined;
    const task = JSON.parse(stored.toString()) as McpTaskRecord;
    return task.expiresAt > Date.now() ? task : undefined;
  }

  async replace(next: McpTaskRecord, expectedVersion: number): Promise<boolean> {
    if (next.version !== expectedVersion + 1 || next.expiresAt <= Date.now()) return false;
    const replaced = await this.client.call(
      'EVAL',
      REPLACE,
      1,
      this.key(next.taskId),
      expectedVersion,
      next.version,
      JSON.stringify(next),
      next.expiresAt,
    );
    return Number(replaced) === 1;
  }

  private key(taskId: string): string {
    return `${this.prefix}${taskId}`;
  }

  /** The partition's index; a digest, as a partition may be long (and is no one's business). */
  private partitionKey(partition: string): string {
    return `${this.prefix}by-caller:${sha256Base64Url(partition)}`;
  }
}
