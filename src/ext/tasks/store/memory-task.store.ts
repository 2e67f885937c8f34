import { frozenCopy } from '../../../kit/deep-freeze';
import {
  partitionLimit,
  retryAfterMs,
  shareRefusal,
  type ShareLimits,
  type ShareRefusal,
} from '../../../kit/fair-share';
import { heapWeight } from '../../../kit/json-weight';
import type { McpTaskRecord } from './mcp-task.types';
import { TaskCapacityError } from './task-capacity.error';
import type { TaskCreationLimits, TaskStore } from './task-store.interface';

/** Options of {@link MemoryTaskStore}. @publicApi */
export interface MemoryTaskStoreOptions {
  /** Unexpired tasks held at once; past it, creating a task fails. Default 10,000. */
  maxTasks?: number;
  /**
   * Heap the unexpired tasks may take, estimated as their JSON bytes plus 64 bytes per JSON value;
   * past it, creating a task fails and a result that does not fit fails its task. Default
   * 1,073,741,824 (1 GiB).
   */
  maxBytes?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** A task as held: the frozen record and what it counts for. */
interface Held {
  readonly task: McpTaskRecord;
  readonly weight: number;
}

/** One partition's tasks and the bytes they count for. */
interface PartitionUsage {
  readonly ids: Set<string>;
  bytes: number;
}

/** @internal */
export const DEFAULT_MAX_TASKS = 10_000;
/** @internal */
export const DEFAULT_MAX_TASK_BYTES = 1_073_741_824;

/**
 * The default {@link TaskStore}: tasks in this process's memory, frozen copies in and out, bounded
 * by a count and by the heap they take, shared fairly between callers (see
 * {@link TaskStore.create}). Expired tasks are dropped when read and swept when room is short.
 * Right for one process; a fleet needs a shared store.
 *
 * @publicApi
 */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Held>();
  private readonly byPartition = new Map<string, PartitionUsage>();
  private totalBytes = 0;
  private readonly maxTasks: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_TASK_BYTES;
    this.now = options.now ?? Date.now;
    for (const [name, value] of [
      ['maxTasks', this.maxTasks],
      ['maxBytes', this.maxBytes],
    ] as const)
      if (!Number.isSafeInteger(value) || value <= 0)
        throw new RangeError(`MemoryTaskStore: ${name} must be a positive integer`);
  }

  create(task: McpTaskRecord, limits: TaskCreationLimits = {}): Promise<void> {
    if (this.live(task.taskId)) return Promise.reject(new Error('Task id already exists'));
    const copy = frozenCopy(task);
    const weight = heapWeight(copy);
    const refusal = this.refusal(task.partition, weight, limits);
    if (refusal) return Promise.reject(refusal);
    this.tasks.set(task.taskId, { task: copy, weight });
    const usage = this.usageOf(task.partition, true) as PartitionUsage;
    usage.ids.add(task.taskId);
    usage.bytes += weight;
    this.totalBytes += weight;
    return Promise.resolve();
  }

  get(taskId: string): Promise<McpTaskRecord | undefined> {
    return Promise.resolve(this.live(taskId)?.task);
  }

  replace(
    next: McpTaskRecord,
    expectedVersion: number,
    limits: TaskCreationLimits = {},
  ): Promise<boolean> {
    const current = this.live(next.taskId);
    if (
      !current ||
      current.task.version !== expectedVersion ||
      next.version !== expectedVersion + 1 ||
      next.partition !== current.task.partition ||
      next.expiresAt <= this.now()
    )
      return Promise.resolve(false);
    const copy = frozenCopy(next);
    const weight = heapWeight(copy);
    const growth = weight - current.weight;
    const usage = this.usageOf(next.partition, true) as PartitionUsage;
    if (growth > 0) {
      // Admitted work may grow into the room others left, but never past the hard limits.
      const bytes = this.byteLimits(limits);
      if (usage.bytes + growth > bytes.perPartition || this.totalBytes + growth > bytes.capacity) {
        this.sweep();
        const refusal = this.checkBytes(usage.bytes, growth, bytes, next.partition, true);
        if (refusal) return Promise.reject(refusal);
      }
    }
    this.tasks.set(next.taskId, { task: copy, weight });
    usage.bytes += growth;
    this.totalBytes += growth;
    return Promise.resolve(true);
  }

  remove(task: McpTaskRecord): Promise<void> {
    const held = this.tasks.get(task.taskId);
    if (held) this.forget(held);
    return Promise.resolve();
  }

  /** Unexpired tasks held now. */
  get size(): number {
    this.sweep();
    return this.tasks.size;
  }

  /** The heap the unexpired tasks are counted as (see `maxBytes`). */
  get bytes(): number {
    this.sweep();
    return this.totalBytes;
  }

  /** Why `partition` may not add a task of `weight`; swept once before refusing. */
  private refusal(
    partition: string,
    weight: number,
    limits: TaskCreationLimits,
  ): TaskCapacityError | undefined {
    const attempt = () => {
      const usage = this.usageOf(partition, false);
      const count: ShareLimits = {
        capacity: this.maxTasks,
        perPartition: Math.min(limits.maxPerPartition ?? this.maxTasks, this.maxTasks),
      };
      const byCount = shareRefusal(count, usage?.ids.size ?? 0, this.tasks.size, 1);
      if (byCount) return this.capacityError(byCount, count, partition, 'tasks', this.tasks.size);
      return this.checkBytes(usage?.bytes ?? 0, weight, this.byteLimits(limits), partition, false);
    };
    const first = attempt();
    if (!first) return undefined;
    this.sweep();
    return attempt();
  }

  private byteLimits(limits: TaskCreationLimits): ShareLimits {
    return {
      capacity: this.maxBytes,
      perPartition: Math.min(limits.maxBytesPerPartition ?? this.maxBytes, this.maxBytes),
    };
  }

  /** A refusal of `weight` more bytes; with `hardOnly`, only the store's and the caller's own limits. */
  private checkBytes(
    held: number,
    weight: number,
    limits: ShareLimits,
    partition: string,
    hardOnly: boolean,
  ): TaskCapacityError | undefined {
    const refusal = shareRefusal(limits, held, this.totalBytes, weight);
    if (!refusal || (hardOnly && refusal === 'share')) return undefined;
    return this.capacityError(refusal, limits, partition, 'bytes', this.totalBytes);
  }

  private capacityError(
    refusal: ShareRefusal,
    limits: ShareLimits,
    partition: string,
    unit: 'tasks' | 'bytes',
    total: number,
  ): TaskCapacityError {
    const now = this.now();
    if (refusal === 'store')
      return new TaskCapacityError(
        limits.capacity,
        'store',
        retryAfterMs(this.firstExpiry(), now),
        unit,
      );
    const limit =
      refusal === 'share' ? Math.floor(partitionLimit(limits, total)) : limits.perPartition;
    return new TaskCapacityError(
      limit,
      'caller',
      retryAfterMs(this.firstExpiry(partition), now),
      unit,
    );
  }

  /** When the first task (of `partition`, or of any) expires. */
  private firstExpiry(partition?: string): number | undefined {
    let first: number | undefined;
    const consider = (held: Held | undefined) => {
      if (held && (first === undefined || held.task.expiresAt < first)) first = held.task.expiresAt;
    };
    if (partition === undefined) for (const held of this.tasks.values()) consider(held);
    else
      for (const taskId of this.usageOf(partition, false)?.ids ?? [])
        consider(this.tasks.get(taskId));
    return first;
  }

  private usageOf(partition: string, create: boolean): PartitionUsage | undefined {
    let usage = this.byPartition.get(partition);
    if (!usage && create) this.byPartition.set(partition, (usage = { ids: new Set(), bytes: 0 }));
    return usage;
  }

  private live(taskId: string): Held | undefined {
    const held = this.tasks.get(taskId);
    if (held && held.task.expiresAt <= this.now()) {
      this.forget(held);
      return undefined;
    }
    return held;
  }

  private forget({ task, weight }: Held): void {
    this.tasks.delete(task.taskId);
    this.totalBytes -= weight;
    const usage = this.byPartition.get(task.partition);
    if (!usage) return;
    usage.ids.delete(task.taskId);
    usage.bytes -= weight;
    if (usage.ids.size === 0) this.byPartition.delete(task.partition);
  }

  private sweep(): void {
    const now = this.now();
    for (const held of this.tasks.values()) if (held.task.expiresAt <= now) this.forget(held);
  }
}
