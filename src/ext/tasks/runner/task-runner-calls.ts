import type { Logger } from '@nestjs/common';
import { internalError } from '../../../kit/errors/internal-error';
import { clip } from '../../../kit/clip';
import { taskRunnerUnavailable } from '../task-busy';
import type { TaskRunner } from './task-runner.interface';
import { OutageLog, loggableFailure, outageOf } from '../../../extension-api';

/**
 * The runner's calls as a request answers them: the runner away (with `BullMqTaskRunner`, its Redis
 * unreachable, read-only, out of memory…) is `-32000 Server busy: the task runner is unavailable`,
 * logged once per outage; any other failure is logged with what failed and answered `-32603`.
 * Never what Redis said, which may quote scripts and limits.
 * @internal
 */
export class TaskRunnerCalls {
  private readonly outage: OutageLog;

  constructor(
    private readonly runner: TaskRunner,
    private readonly logger: Logger,
  ) {
    this.outage = new OutageLog(logger, 'The task runner');
  }

  /** Runs `work` on the runner for `taskId`; `failed` says what failed, for the log. */
  async call(taskId: string, failed: string, work: (runner: TaskRunner) => Promise<void>) {
    try {
      await work(this.runner);
      this.outage.answered();
    } catch (error) {
      const unavailable = outageOf(error);
      if (unavailable !== undefined) {
        this.outage.failed(unavailable);
        throw taskRunnerUnavailable();
      }
      this.logger.error(`Task ${clip(taskId)}${failed} (${loggableFailure(error)})`);
      throw internalError();
    }
  }
}
