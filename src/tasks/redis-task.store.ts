import type { McpTaskRecord } from './mcp-task.types';
import type { TaskStore } from './task-store.interface';

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

// Each task is a hash: `v` its version, `d` its JSON; the key expires when the task does.
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
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

  async create(task: McpTaskRecord): Promise<void> {
    const created = await this.client.call(
      'EVAL',
      CREATE,
      1,
      this.key(task.taskId),
      task.version,
      JSON.stringify(task),
      task.expiresAt,
    );
    if (Number(created) !== 1) throw new Error('Task id already exists');
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
}
