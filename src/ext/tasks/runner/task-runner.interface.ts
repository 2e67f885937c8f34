/**
 * A runner's hold on one running step, for runners that may give a step to another worker (a
 * queue's lock): the step checks it before its method starts and before it commits anything, and
 * gives up when it no longer holds.
 *
 * @publicApi
 */
export interface TaskStepLease {
  /** Whether this worker still holds the step (and, for a lock, keeps holding it a while longer). */
  holds(): Promise<boolean>;
}

/**
 * Runs one step of a task (its first run or a resume), honouring `signal` (cancellation, or the
 * runner losing the step) and, when given, `lease` (checked before the method starts and before
 * each commit).
 * @publicApi
 */
export type TaskWork = (
  taskId: string,
  signal: AbortSignal,
  lease?: TaskStepLease,
) => Promise<void>;

/**
 * Schedules task runs. The module attaches the work once at startup and then asks for runs by
 * task id; a runner may execute them here (the default) or on any instance sharing the store (a
 * job queue), as long as `cancel` reaches the run wherever it executes.
 *
 * @publicApi
 */
export interface TaskRunner {
  /** Called once at startup with what a run does. */
  attach(work: TaskWork): void;
  /** Runs the task's next step soon. */
  schedule(taskId: string): Promise<void>;
  /** Aborts the task's running step, if one is running. */
  cancel(taskId: string): Promise<void>;
  /** Aborts every running step and stops accepting runs. */
  close(): Promise<void>;
}

/** Injection token of the {@link TaskRunner}. @publicApi */
export const TaskRunner = Symbol('TaskRunner');
