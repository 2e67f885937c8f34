/** Runs one step of a task (its first run or a resume), honouring `signal` (cancellation). */
export type TaskWork = (taskId: string, signal: AbortSignal) => Promise<void>;

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
