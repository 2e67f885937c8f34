import { mustNotExceed } from '../../kit/errors/must-not-exceed';
import type { TaskRunner } from './runner/task-runner.interface';
import type { TaskStore } from './store/task-store.interface';
import { DEFAULT_MAX_TASK_BYTES, DEFAULT_MAX_TASKS } from './store/memory-task.store';
import {
  booleanOption,
  implementing,
  objectOption,
  positiveInteger,
  positiveIntegers,
} from '../../extension-api';

/**
 * What one caller's tasks may hold of the module's stores by default: 64 MiB, a sixteenth of the
 * 1 GiB the stores hold in all (see docs/tasks.md for the arithmetic).
 * @internal
 */
export const DEFAULT_MAX_TASK_BYTES_PER_CALLER = 67_108_864;

/** Tasks options with defaults filled in and values checked. @internal */
export interface ResolvedTaskOptions {
  /** Whether the tasks extension is served (its methods, diverts and capability entry). */
  readonly enabled: boolean;
  readonly ttlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly maxResultBytes: number;
  readonly maxInputResponseBytes: number;
  readonly maxTasksPerCaller: number;
  /** Largest call (name, arguments, `_meta`, other params) a task keeps, in JSON bytes. */
  readonly maxCallBytes: number;
  /** Unexpired tasks the module's own stores hold at once. */
  readonly maxTasks: number;
  /** Bytes the module's own stores may hold (memory: estimated heap; Redis: JSON bytes). */
  readonly maxStoreBytes: number;
  /** Bytes of the module's own stores one caller's tasks may hold. */
  readonly maxStoreBytesPerCaller: number;
  readonly store: TaskStore | undefined;
  readonly runner: TaskRunner | undefined;
}

/** Injection token of the resolved {@link ResolvedTaskOptions}. @internal */
export const TASK_OPTIONS = Symbol('TaskOptions');

/** The `tasks` options as the module options spell them. @internal */
export type TaskOptionsInput = Partial<
  Record<Exclude<keyof ResolvedTaskOptions, 'store' | 'runner'>, unknown>
> & {
  store?: TaskStore;
  runner?: TaskRunner;
};

/** Fills the `tasks` defaults and checks each value, naming the first bad option. @internal */
export function resolveTaskOptions(tasks: TaskOptionsInput | undefined): ResolvedTaskOptions {
  objectOption('tasks', tasks);
  const maxTtlMs = positiveInteger('tasks.maxTtlMs', tasks?.maxTtlMs, 86_400_000);
  const ttlMs = positiveInteger('tasks.ttlMs', tasks?.ttlMs, Math.min(3_600_000, maxTtlMs));
  mustNotExceed('tasks.ttlMs', ttlMs, 'tasks.maxTtlMs', maxTtlMs);
  const maxStoreBytes = positiveInteger(
    'tasks.maxStoreBytes',
    tasks?.maxStoreBytes,
    DEFAULT_MAX_TASK_BYTES,
  );
  const maxStoreBytesPerCaller = positiveInteger(
    'tasks.maxStoreBytesPerCaller',
    tasks?.maxStoreBytesPerCaller,
    Math.min(DEFAULT_MAX_TASK_BYTES_PER_CALLER, maxStoreBytes),
  );
  mustNotExceed(
    'tasks.maxStoreBytesPerCaller',
    maxStoreBytesPerCaller,
    'tasks.maxStoreBytes',
    maxStoreBytes,
  );
  return {
    enabled: booleanOption('tasks.enabled', tasks?.enabled, true),
    ttlMs,
    maxTtlMs,
    ...positiveIntegers('tasks', tasks, {
      pollIntervalMs: 1_000,
      maxResultBytes: 1_048_576,
      maxInputResponseBytes: 262_144,
      maxTasksPerCaller: 100,
      maxCallBytes: 262_144,
      maxTasks: DEFAULT_MAX_TASKS,
    }),
    maxStoreBytes,
    maxStoreBytesPerCaller,
    store: implementing('tasks.store', tasks?.store, ['create', 'get', 'replace'], ', '),
    runner: implementing(
      'tasks.runner',
      tasks?.runner,
      ['attach', 'schedule', 'cancel', 'close'],
      ', ',
    ),
  };
}
