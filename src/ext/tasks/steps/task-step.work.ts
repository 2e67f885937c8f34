import { Inject, Injectable, Logger } from '@nestjs/common';
import { clip } from '../../../kit/clip';
import type { TaskStepLease } from '../runner/task-runner.interface';
import { TaskRecords } from '../task-records';
import { failedStep } from '../task-outcomes';
import type { TaskExecutor, TaskStepOutcome } from './task-step-outcome';
import { TaskStepExecutor } from './task-step.executor';
import { TaskStepRequests } from './task-step-requests';

/**
 * One step of a task, as the runner runs it (the work a runner is attached with): lets go of the
 * request held for it, claims the task, runs the operation once and commits what it ended with —
 * only while the claim stands and, with a runner's lease (a queue's lock), only while this worker
 * still holds the step. A step whose worker lost the lock checks that before the method starts
 * and before it commits, and gives up instead; its `ctx.signal` aborts as soon as the runner
 * learns it.
 * @internal
 */
@Injectable()
export class TaskStepWork {
  private readonly logger = new Logger('McpTasks');

  constructor(
    private readonly records: TaskRecords,
    private readonly requests: TaskStepRequests,
    @Inject(TaskStepExecutor) private readonly executor: TaskExecutor,
  ) {}

  async run(taskId: string, signal: AbortSignal, lease?: TaskStepLease): Promise<void> {
    // Let go of the request held for this step whatever happens next: the step runs on it or not at all.
    const http = this.requests.take(taskId);
    if (signal.aborted) return;
    if (!(await this.stillHeld(lease, taskId, 'its method does not start'))) return;
    // The claim reads the task and claims it only while it is working: no read of its own first.
    const claim = await this.records.claim(taskId);
    if (!claim || signal.aborted) return;
    let outcome: TaskStepOutcome;
    try {
      outcome = await this.executor.run(claim.task, {
        signal,
        http,
        progress: (message) => this.records.progress(taskId, message, claim.token),
      });
    } catch (error) {
      // A cancelled step gave up as asked; the task already says so.
      if (signal.aborted) return;
      outcome = failedStep(taskId, error);
    }
    if (signal.aborted) return;
    if (!(await this.stillHeld(lease, taskId, 'its outcome is not recorded'))) return;
    if (!(await this.records.settle(taskId, outcome, claim.token, claim.stored)))
      this.logger.debug?.(
        `Task ${clip(taskId)}: a step's outcome was not recorded (the task moved on)`,
      );
  }

  /** Whether this worker still holds the step; a lease that cannot answer does not hold. */
  private async stillHeld(
    lease: TaskStepLease | undefined,
    taskId: string,
    consequence: string,
  ): Promise<boolean> {
    if (!lease) return true;
    const holds = await lease.holds().catch(() => false);
    if (!holds)
      this.logger.warn(
        `Task ${clip(taskId)}: this worker no longer holds its step (lock lost); ${consequence}`,
      );
    return holds;
  }
}
