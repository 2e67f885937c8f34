import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import { implementing, objectOption, positiveInteger } from '../options/option-checks';
import type { TaskRunner } from './runner/task-runner.interface';
import type { TaskStore } from './store/task-store.interface';

/** Tasks options with defaults filled in and values checked. @internal */
export interface ResolvedTaskOptions {
  readonly ttlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly maxResultBytes: number;
  readonly maxInputResponseBytes: number;
  readonly maxTasksPerCaller: number;
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
  if (ttlMs > maxTtlMs)
    throw new InvalidModuleOptionsError('tasks.ttlMs', 'must not exceed tasks.maxTtlMs');
  return {
    ttlMs,
    maxTtlMs,
    pollIntervalMs: positiveInteger('tasks.pollIntervalMs', tasks?.pollIntervalMs, 1_000),
    maxResultBytes: positiveInteger('tasks.maxResultBytes', tasks?.maxResultBytes, 1_048_576),
    maxInputResponseBytes: positiveInteger(
      'tasks.maxInputResponseBytes',
      tasks?.maxInputResponseBytes,
      262_144,
    ),
    maxTasksPerCaller: positiveInteger('tasks.maxTasksPerCaller', tasks?.maxTasksPerCaller, 100),
    store: implementing('tasks.store', tasks?.store, ['create', 'get', 'replace'], ', '),
    runner: implementing(
      'tasks.runner',
      tasks?.runner,
      ['attach', 'schedule', 'cancel', 'close'],
      ', ',
    ),
  };
}
