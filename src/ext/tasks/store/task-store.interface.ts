import type { McpTaskRecord } from './mcp-task.types';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- referenced by the JSDoc
import type { TaskCapacityError } from './task-capacity.error';
import { port } from '../../../extension-api';

/** What {@link TaskStore.create} and {@link TaskStore.replace} enforce per caller. @publicApi */
export interface TaskCreationLimits {
  /** Unexpired tasks one authorization partition may hold. */
  readonly maxPerPartition?: number;
  /** JSON bytes one partition's unexpired tasks may hold, for stores that count bytes. */
  readonly maxBytesPerPartition?: number;
}

/**
 * Where tasks live. Every write is atomic on the record: `replace` succeeds only when the stored
 * version is still `expected.version`, and stores `next` (whose `version` is one higher); two
 * writers racing on one task never both succeed. Expired tasks (`expiresAt` passed) are gone: `get`
 * answers `undefined` and `replace` answers `false`. Implement it over a shared database (Redis,
 * SQL) for a fleet; the default is Redis when the module's `redis` option is set, else this
 * process's memory.
 *
 * @publicApi
 */
export interface TaskStore {
  /**
   * Stores a new task; rejects when the id is taken. With `limits.maxPerPartition`, rejects with
   * {@link TaskCapacityError} instead when the task's partition already holds that many unexpired
   * tasks — checked and recorded in one atomic step. A store with a capacity of its own (the
   * module's) also refuses, with the same error, when it is full, and shares what is left fairly:
   * near full, a partition that holds more than its shrinking share is refused first.
   */
  create(task: McpTaskRecord, limits?: TaskCreationLimits): Promise<void>;
  /** The task, unless unknown or expired. */
  get(taskId: string): Promise<McpTaskRecord | undefined>;
  /**
   * Compare-and-set: stores `next` only if the stored version is `expectedVersion`. A store that
   * counts bytes may reject a `next` that grows past its capacity or `limits.maxBytesPerPartition`
   * with {@link TaskCapacityError} (the task then fails); `next.expiresAt` may move the expiry.
   */
  replace(
    next: McpTaskRecord,
    expectedVersion: number,
    limits?: TaskCreationLimits,
  ): Promise<boolean>;
  /**
   * Optional: forgets a task at once, giving its partition's allowance back — for a task whose
   * creating call failed after it was stored, which nobody will ever ask about. Without it the
   * module marks such a task failed and lets it expire within a second.
   */
  remove?(task: McpTaskRecord): Promise<void>;
}

/** Injection token of the {@link TaskStore}. @publicApi */
export const TaskStore = Symbol('TaskStore');

/** The TaskStore port: the `tasks.store` option, or a provider of the token. @internal */
export const TASK_STORE_PORT = port<TaskStore>(TaskStore, 'tasks.store');
