import { Logger } from '@nestjs/common';
import type { TaskRunner, TaskWork } from './task-runner.interface';

/** Options of {@link InProcessTaskRunner}. @publicApi */
export interface InProcessTaskRunnerOptions {
  /** Steps running at once; later ones wait their turn, in order. Default 100. */
  maxConcurrent?: number;
}

/**
 * The default {@link TaskRunner}: runs each step in this process, at most `maxConcurrent` at once
 * (the rest queue), with an `AbortController` per task that `cancel` aborts, queued or running.
 *
 * @publicApi
 */
export class InProcessTaskRunner implements TaskRunner {
  private readonly logger = new Logger('McpTasks');
  private readonly controllers = new Map<string, AbortController>();
  private readonly queue: { taskId: string; controller: AbortController }[] = [];
  private readonly maxConcurrent: number;
  private running = 0;
  private work: TaskWork | undefined;
  private closed = false;

  constructor(options: InProcessTaskRunnerOptions = {}) {
    this.maxConcurrent = options.maxConcurrent ?? 100;
    if (!Number.isSafeInteger(this.maxConcurrent) || this.maxConcurrent <= 0)
      throw new RangeError('InProcessTaskRunner: maxConcurrent must be a positive integer');
  }

  attach(work: TaskWork): void {
    this.work = work;
  }

  schedule(taskId: string): Promise<void> {
    if (!this.work || this.closed)
      return Promise.reject(new Error('The task runner is not running'));
    // A step still running (or queued) for this task sees its abort; the new one takes over.
    this.controllers.get(taskId)?.abort();
    const controller = new AbortController();
    this.controllers.set(taskId, controller);
    this.queue.push({ taskId, controller });
    this.drain();
    return Promise.resolve();
  }

  cancel(taskId: string): Promise<void> {
    this.controllers.get(taskId)?.abort();
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    for (const controller of this.controllers.values()) controller.abort();
    this.controllers.clear();
    this.queue.length = 0;
    return Promise.resolve();
  }

  /** Steps waiting for a slot. */
  get queued(): number {
    return this.queue.length;
  }

  private drain(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const { taskId, controller } = this.queue.shift() as (typeof this.queue)[number];
      if (controller.signal.aborted) {
        if (this.controllers.get(taskId) === controller) this.controllers.delete(taskId);
        continue;
      }
      this.running++;
      setImmediate(() => this.run(taskId, controller));
    }
  }

  private run(taskId: string, controller: AbortController): void {
    (this.work as TaskWork)(taskId, controller.signal)
      .catch((error: unknown) =>
        this.logger.error(
          'A task step failed outside its operation',
          error instanceof Error ? error.stack : String(error),
        ),
      )
      .finally(() => {
        if (this.controllers.get(taskId) === controller) this.controllers.delete(taskId);
        this.running--;
        this.drain();
      });
  }
}
