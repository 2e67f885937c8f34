import { Logger } from '@nestjs/common';
import { partitionLimit, retryAfterMs, type ShareLimits } from '../../../kit/fair-share';
import { sha256Base64Url } from '../../../kit/sha256';
import type { McpTaskRecord } from './mcp-task.types';
import { CREATE, REPLACE, REMOVE_BODY, REMOVE } from './redis-task.scripts';
import { DEFAULT_MAX_TASK_BYTES, DEFAULT_MAX_TASKS } from './memory-task.store';
import { TaskCapacityError } from './task-capacity.error';
import { isTaskId } from './task-id';
import type { TaskCreationLimits, TaskStore } from './task-store.interface';
import {
  RedisClock,
  adapterKeyPrefix,
  type McpRedisClient,
  type RecordIntegrity,
} from '../../../extension-api';

/** Options of {@link RedisTaskStore}. @publicApi */
export interface RedisTaskStoreOptions {
  /** Prefix of every key. Default `nestjs-mcp:task:`. */
  keyPrefix?: string;
  /** Unexpired tasks the fleet holds at once; past it, creating a task fails. Default 10,000. */
  maxTasks?: number;
  /** JSON bytes the unexpired tasks may take in Redis. Default 1,073,741,824 (1 GiB). */
  maxBytes?: number;
  /** How long a write may take, in ms; one that reaches Redis later changes nothing (`late`). Default 1,000. */
  commandTimeoutMs?: number;
}

/** Domain of a task record's integrity tag. */
const TASK_RECORD = 'task';

/**
 * A {@link TaskStore} on Redis, for a fleet sharing tasks: creation and compare-and-set run as Lua
 * scripts (atomic on the server), each task's key expires with the task, and the fleet's tasks are
 * bounded by a count and by their bytes, shared fairly between callers. Give it your own ioredis
 * client; it never connects or closes one itself.
 *
 * Inside the module every record carries a tag under the keyring and is checked on every read: a
 * record edited in Redis (another partition, other arguments) is treated as missing and logged
 * with its key. Records stay plain JSON for anyone reading Redis.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ tasks: { store: new RedisTaskStore(new Redis(process.env.REDIS_URL)) } })
 * ```
 * @publicApi
 */
export class RedisTaskStore implements TaskStore {
  private readonly logger = new Logger('McpTasks');
  private readonly prefix: string;
  private readonly maxTasks: number;
  private readonly maxBytes: number;
  private integrity: RecordIntegrity | undefined;
  private readonly commandTimeoutMs: number;
  private readonly clock: RedisClock;

  constructor(
    private readonly client: Pick<McpRedisClient, 'call'>,
    options: RedisTaskStoreOptions = {},
  ) {
    this.prefix = adapterKeyPrefix(client, options.keyPrefix, 'nestjs-mcp:task:', 'RedisTaskStore');
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_TASK_BYTES;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 1_000;
    for (const [name, value] of [
      ['maxTasks', this.maxTasks],
      ['maxBytes', this.maxBytes],
      ['commandTimeoutMs', this.commandTimeoutMs],
    ] as const)
      if (!Number.isSafeInteger(value) || value <= 0)
        throw new RangeError(`RedisTaskStore: ${name} must be a positive integer`);
    this.clock = new RedisClock(() => client.call('TIME'));
  }

  /**
   * Tags and checks every record from now on under the module's keyring: the module calls this
   * once at startup for an instance it did not construct (`new RedisTaskStore(client)` handed in by the
   * application); one constructed with its own integrity keeps that.
   * @internal
   */
  authenticateRecordsWith(integrity: RecordIntegrity): void {
    this.integrity ??= integrity;
  }

  async create(task: McpTaskRecord, limits: TaskCreationLimits = {}): Promise<void> {
    const json = JSON.stringify(task);
    const weight = Buffer.byteLength(json);
    const key = this.key(task.taskId);
    const owner = sha256Base64Url(task.partition);
    const reply = await this.runScript(
      CREATE,
      key,
      owner,
      task.version,
      json,
      task.expiresAt,
      Date.now(),
      Math.min(limits.maxPerPartition ?? this.maxTasks, this.maxTasks),
      task.taskId,
      this.tagOf(key, task.version, json),
      this.maxTasks,
      this.maxBytes,
      Math.min(limits.maxBytesPerPartition ?? this.maxBytes, this.maxBytes),
      weight,
      owner,
    );
    if (Array.isArray(reply)) throw this.capacityError(reply, limits);
    if (Number(reply) !== 1) throw new Error('Task id already exists');
  }

  async get(taskId: string): Promise<McpTaskRecord | undefined> {
    if (!isTaskId(taskId)) return undefined;
    const key = this.key(taskId);
    const reply = await this.client.call('HMGET', key, 'v', 'd', 't');
    const [version, stored, tag] = (Array.isArray(reply) ? reply : []).map((field: unknown) =>
      typeof field === 'string' || Buffer.isBuffer(field) ? field.toString() : undefined,
    );
    if (version === undefined && stored === undefined) return undefined;
    const task =
      stored === undefined ? undefined : this.authentic(key, taskId, version, stored, tag);
    if (!task) {
      this.logger.warn(
        `A task record failed its integrity check and is treated as missing: ${key}`,
      );
      return undefined;
    }
    return task.expiresAt > Date.now() ? task : undefined;
  }

  async replace(
    next: McpTaskRecord,
    expectedVersion: number,
    limits: TaskCreationLimits = {},
  ): Promise<boolean> {
    if (next.version !== expectedVersion + 1 || next.expiresAt <= Date.now()) return false;
    const json = JSON.stringify(next);
    const key = this.key(next.taskId);
    const owner = sha256Base64Url(next.partition);
    const reply = await this.runScript(
      REPLACE,
      key,
      owner,
      expectedVersion,
      next.version,
      json,
      next.expiresAt,
      this.tagOf(key, next.version, json),
      Date.now(),
      next.taskId,
      Buffer.byteLength(json),
      this.maxBytes,
      Math.min(limits.maxBytesPerPartition ?? this.maxBytes, this.maxBytes),
      owner,
    );
    if (Array.isArray(reply)) throw this.capacityError(reply, limits);
    return Number(reply) === 1;
  }

  async remove(task: McpTaskRecord): Promise<void> {
    const keys = [
      this.key(task.taskId),
      this.partitionKey(sha256Base64Url(task.partition)),
      this.indexKey('all'),
      this.indexKey('bytes'),
    ];
    try {
      await this.client.call('EVAL', REMOVE, 4, ...keys, task.taskId);
    } catch (error) {
      // Redis before 7 knows no script flags: the same script without them.
      if (!/shebang|flags/i.test(String((error as { message?: unknown })?.message))) throw error;
      await this.client.call('EVAL', REMOVE_BODY, 4, ...keys, task.taskId);
    }
  }

  /**
   * Runs a task script that writes on its four keys (the record, its caller's index, the index of
   * all tasks, the byte tally) with `args` and the command deadline; its reply, once known in time.
   */
  private async runScript(
    script: string,
    key: string,
    owner: string,
    ...args: (string | number)[]
  ): Promise<unknown> {
    const keys = [key, this.partitionKey(owner), this.indexKey('all'), this.indexKey('bytes')];
    return this.clock.evalInTime(this.client, script, keys, args, this.commandTimeoutMs);
  }

  /** The record, when its tag (if the module tags records) and its fields agree with its key. */
  private authentic(
    key: string,
    taskId: string,
    version: string | undefined,
    stored: string,
    tag: string | undefined,
  ): McpTaskRecord | undefined {
    if (this.integrity && !this.integrity.verify(tag, TASK_RECORD, [key, version ?? '', stored]))
      return undefined;
    let task: McpTaskRecord;
    try {
      task = JSON.parse(stored) as McpTaskRecord;
    } catch {
      return undefined;
    }
    if (task?.taskId !== taskId || (this.integrity && String(task.version) !== version))
      return undefined;
    return task;
  }

  private tagOf(key: string, version: number, json: string): string {
    return this.integrity?.tag(TASK_RECORD, [key, String(version), json]) ?? '';
  }

  private capacityError(reply: unknown[], limits: TaskCreationLimits): TaskCapacityError {
    const [unit, refusal, total, firstExpiry] = reply.map(String) as [
      'tasks' | 'bytes',
      'partition' | 'share' | 'store',
      string,
      string,
    ];
    const shares: ShareLimits =
      unit === 'tasks'
        ? {
            capacity: this.maxTasks,
            perPartition: Math.min(limits.maxPerPartition ?? this.maxTasks, this.maxTasks),
          }
        : {
            capacity: this.maxBytes,
            perPartition: Math.min(limits.maxBytesPerPartition ?? this.maxBytes, this.maxBytes),
          };
    const retry = retryAfterMs(firstExpiry === '' ? undefined : Number(firstExpiry), Date.now());
    if (refusal === 'store') return new TaskCapacityError(shares.capacity, 'store', retry, unit);
    const limit =
      refusal === 'share' ? Math.floor(partitionLimit(shares, Number(total))) : shares.perPartition;
    return new TaskCapacityError(limit, 'caller', retry, unit);
  }

  private key(taskId: string): string {
    return `${this.prefix}${taskId}`;
  }

  /** The partition's index; a digest, as a partition may be long (and is no one's business). */
  private partitionKey(owner: string): string {
    return `${this.prefix}by-caller:${owner}`;
  }

  /** Keys of the store's own counts; `~` is in no task id, so none can collide with a task. */
  private indexKey(name: string): string {
    return `${this.prefix}~${name}`;
  }
}
