import { frozenCopy } from '../../util/deep-freeze';
import type { McpTaskRecord } from './mcp-task.types';
import { TaskCapacityError } from './task-capacity.error';
import type { TaskCreationLimits, TaskStore } from './task-store.interface';

/** Options of {@link MemoryTaskStore}. @publicApi */
export interface MemoryTaskStoreOptions {
  /** Unexpired tasks held at once; past it, creating a task fails. Default 10,000. */
  maxTasks?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * The default {@link TaskStore}: tasks in this process's memory, frozen copies in and out, expired
 * ones dropped when read and swept when the store is full. Right for one process; a fleet needs a
 * shared store.
 *
 * @publicApi
 */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, McpTaskRecord>();
  /** Task ids by partition, for per-caller limits (expired ones leave as they are found). */
  private readonly byPartition = new Map<string, Set<string>>();
  private readonly maxTasks: number;
  private readonly now: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  create(task: McpTaskRecord, limits: TaskCreationLimits = {}): Promise<void> {
    if (this.live(task.taskId)) return Promise.reject(new Error('Task id already exists'));
    const max = limits.maxPerPartition;
    if (max !== undefined && this.liveCountOf(task.partition) >= max)
      return Promise.reject(new TaskCapacityError(max, 'caller'));
    if (this.tasks.size >= this.maxTasks) this.sweep();
    if (this.tasks.size >= this.maxTasks)
      return Promise.reject(new TaskCapacityError(this.maxTasks));
    this.tasks.set(task.taskId, frozenCopy(task));
    let ids = this.byPartition.get(task.partition);
    if (!ids) this.byPartition.set(task.partition, (ids = new Set()));
    ids.add(task.taskId);
    return Promise.resolve();
  }

  get(taskId: string): Promise<McpTaskRecord | undefined> {
    return Promise.resolve(this.live(taskId));
  }

  replace(next: McpTaskRecord, expectedVersion: number): Promise<boolean> {
    const current = this.live(next.taskId);
    if (!current || current.version !== expectedVersion || next.version !== expectedVersion + 1)
      return Promise.resolve(false);
    this.tasks.set(next.taskId, frozenCopy(next));
    return Promise.resolve(true);
  }

  /** Unexpired tasks held now. */
  get size(): number {
    this.sweep();
    return this.tasks.size;
  }

  private live(taskId: string): McpTaskRecord | undefined {
    const task = this.tasks.get(taskId);
    if (task && task.expiresAt <= this.now()) {
      this.forget(task);
      return undefined;
    }
    return task;
  }

  /** Unexpired tasks of `partition`, dropping the expired ones found on the way. */
  private liveCountOf(partition: string): number {
    const ids = this.byPartition.get(partition);
    if (!ids) return 0;
    for (const taskId of ids) if (!this.live(taskId)) ids.delete(taskId);
    return ids.size;
  }

  private forget(task: McpTaskRecord): void {
    this.tasks.delete(task.taskId);
    const ids = this.byPartition.get(task.partition);
    ids?.delete(task.taskId);
    if (ids?.size === 0) this.byPartition.delete(task.partition);
  }

  private sweep(): void {
    const now = this.now();
    for (const task of this.tasks.values()) if (task.expiresAt <= now) this.forget(task);
  }
}
