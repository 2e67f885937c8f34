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
