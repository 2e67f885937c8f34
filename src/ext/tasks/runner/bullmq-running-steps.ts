/** Why a running step's signal aborted: the task was cancelled or superseded, or this runner closes. @internal */
export const STEP_CANCELLED = 'cancelled';
/** @internal */
export const RUNNER_CLOSING = 'closing';
/** This worker's lock on the step lapsed: another worker may be running it. @internal */
export const LOCK_LOST = 'lock lost';

/** @internal */
export interface RunningStep {
  readonly taskId: string;
  readonly generation: number;
  readonly controller: AbortController;
}

/**
 * The steps running in this process, by job id, with the generation each runs for: an abort
 * "below generation N" for a task reaches every older step of it, never a newer one.
 * @internal
 */
export class BullMqRunningSteps {
  private readonly steps = new Map<string, RunningStep>();

  start(jobId: string, taskId: string, generation: number): AbortController {
    const controller = new AbortController();
    this.steps.set(jobId, { taskId, generation, controller });
    return controller;
  }

  end(jobId: string): void {
    this.steps.delete(jobId);
  }

  /** Aborts this task's steps older than `generation`. */
  abortBelow(taskId: string, generation: number): void {
    for (const step of this.steps.values())
      if (step.taskId === taskId && step.generation < generation)
        step.controller.abort(STEP_CANCELLED);
  }

  /** Aborts the step of `jobId`, if it runs here; answers its task. */
  abortJob(jobId: string, reason: string): string | undefined {
    const step = this.steps.get(jobId);
    step?.controller.abort(reason);
    return step?.taskId;
  }

  /** The running steps (a copy). */
  running(): RunningStep[] {
    return [...this.steps.values()];
  }

  abortAll(reason: string): void {
    for (const step of this.steps.values()) step.controller.abort(reason);
  }

  get size(): number {
    return this.steps.size;
  }
}
