import { Logger } from '@nestjs/common';
import type { TaskRunner, TaskWork } from './task-runner.interface';

/**
 * The default {@link TaskRunner}: runs each step in this process, right after the request that
 * scheduled it, with an `AbortController` per running task that `cancel` aborts.
 *
 * @publicApi
 */
export class InProcessTaskRunner implements TaskRunner {
  private readonly logger = new Logger('McpTasks');
  private readonly running = new Map<string, AbortController>();
  private work: TaskWork | undefined;
  private closed = false;

  attach(work: TaskWork): void {
    this.work = work;
  }

  schedule(taskId: string): Promise<void> {
    const work = this.work;
    if (!work || this.closed) return Promise.reject(new Error('The task runner is not running'));
    // A step still running for this task sees its abort; the new one takes over.
    this.running.get(taskId)?.abort();
    const controller = new AbortController();
    this.running.set(taskId, controller);
    setImmediate(() => {
      work(taskId, controller.signal)
        .catch((error: unknown) =>
          this.logger.error(
            'A task step failed outside its operation',
            error instanceof Error ? error.stack : String(error),
          ),
        )
        .finally(() => {
          if (this.running.get(taskId) === controller) this.running.delete(taskId);
        });
    });
    return Promise.resolve();
  }

  cancel(taskId: string): Promise<void> {
    this.running.get(taskId)?.abort();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    return Promise.resolve();
  }
}
