import { Logger } from '@nestjs/common';
import type { Job, Queue, Worker } from 'bullmq';
import { BullMqAbortChannel } from './bullmq-abort-channel';
import { loadOptionalPeer } from './bullmq-loader';
import type { BullMqRedisClient } from './bullmq-redis-client';
import { BullMqStepGenerations, GENERATION_TTL_MS } from './bullmq-step-generations';
import { resolveOptions, type BullMqTaskRunnerOptions } from './bullmq-task-runner.options';
import { clip } from '../../../kit/clip';
import { BullMqRunningSteps, LOCK_LOST, RUNNER_CLOSING } from './bullmq-running-steps';
import { authenticStep, jobIdOf, stepData, type StepData } from './bullmq-step-messages';
import type { TaskRunner, TaskStepLease, TaskWork } from './task-runner.interface';
import {
  duplicateConnection,
  loggableFailure,
  type McpRedisClient,
  type RecordIntegrity,
} from '../../../extension-api';

/** Task ids are the module's (22 base64url characters); anything else is refused before Redis. */
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * A {@link TaskRunner} for a fleet, on a BullMQ queue in Redis: a step scheduled on one instance
 * runs on whichever instance's worker takes it; a step whose worker dies (its lock lapses) is
 * queued again and run by another (stalled-job recovery); `cancel` reaches the step wherever it
 * runs through a Redis channel every runner listens on, and drops it if it is still queued.
 *
 * Each `schedule` of a task starts a new generation of it: the newest step supersedes older
 * ones — an older one still queued is skipped, one running anywhere sees its signal abort.
 * `cancel` ends every generation so far. `close()` stops taking steps and aborts the running
 * ones, which go back to the queue for another instance.
 *
 * `bullmq` (and `ioredis`) are optional peer dependencies, loaded only when a runner is made.
 * Given a client, the runner duplicates it for its own connections and never closes yours.
 *
 * @example
 * ```ts
 * const redis = new Redis(process.env.REDIS_URL);
 * McpModule.forRoot({
 *   keyring,
 *   tasks: { store: new RedisTaskStore(redis), runner: new BullMqTaskRunner(redis) },
 * });
 * ```
 * @publicApi
 */
export class BullMqTaskRunner implements TaskRunner {
  private readonly logger = new Logger('McpTasks');
  private readonly options: Required<BullMqTaskRunnerOptions>;
  private readonly bullmq: typeof import('bullmq');
  /** Commands and publishing: the application's client, never closed here. */
  private readonly client: BullMqRedisClient;
  private readonly generations: BullMqStepGenerations;
  private readonly queue: Queue<StepData>;
  private readonly steps = new BullMqRunningSteps();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly aborts: BullMqAbortChannel;
  private workerClient: McpRedisClient | undefined;
  private worker: Worker<StepData> | undefined;
  private work: TaskWork | undefined;
  private integrity: RecordIntegrity | undefined;
  private closed = false;

  constructor(client: BullMqRedisClient, options: BullMqTaskRunnerOptions = {}) {
    if (typeof client?.duplicate !== 'function')
      throw new TypeError('BullMqTaskRunner: client must be an ioredis client');
    this.options = resolveOptions(options, client);
    this.bullmq = loadOptionalPeer<typeof import('bullmq')>('bullmq', 'BullMqTaskRunner');
    this.client = client;
    const { queueName, prefix } = this.options;
    this.generations = new BullMqStepGenerations(
      client,
      `${prefix}:${queueName}:nestjs-mcp:generation:`,
    );
    this.queue = new this.bullmq.Queue<StepData>(queueName, {
      connection: this.client as never,
      prefix,
    });
    this.queue.on('error', (error) => this.reportRedisError(error));
    this.aborts = new BullMqAbortChannel(
      client,
      `${prefix}:${queueName}:nestjs-mcp:abort`,
      this.steps,
      this.generations,
      () => this.integrity,
      this.logger,
      (error) => this.reportRedisError(error),
    );
  }

  /**
   * Tags and checks every queued step from now on under the module's keyring: the module calls this
   * once at startup for an instance it did not construct (`new BullMqTaskRunner(connection)` handed in by the
   * application); one constructed with its own integrity keeps that.
   * @internal
   */
  authenticateRecordsWith(integrity: RecordIntegrity): void {
    this.integrity ??= integrity;
  }

  attach(work: TaskWork): void {
    this.work = work;
    if (!this.options.worker || this.worker || this.closed) return;
    // The worker blocks on its connections, which therefore must retry forever: its own duplicates.
    this.workerClient = duplicateConnection(this.client, { maxRetriesPerRequest: null });
    this.worker = new this.bullmq.Worker<StepData>(
      this.options.queueName,
      (job, token) => this.runStep(job, token),
      {
        connection: this.workerClient as never,
        prefix: this.options.prefix,
        concurrency: this.options.concurrency,
        lockDuration: this.options.lockDurationMs,
        stalledInterval: this.options.stalledIntervalMs,
        maxStalledCount: this.options.maxStalledCount,
      },
    );
    this.worker.on('error', (error) => {
      // Said again, with the job, by 'lockRenewalFailed' below.
      if (!/^could not renew lock/.test(error.message)) this.reportRedisError(error);
    });
    // The lock could not be renewed (this process was paused, or cut off from Redis, for longer
    // than the lock lasts): another worker may be running the step by now, so this one stops.
    this.worker.on('lockRenewalFailed', (jobIds: string[]) => {
      for (const jobId of jobIds) {
        const taskId = this.steps.abortJob(jobId, LOCK_LOST);
        if (taskId !== undefined)
          this.logger.warn(
            `Task ${taskId}: this worker lost its lock on the step; the step's signal aborts and its outcome is not recorded`,
          );
      }
    });
    this.worker.on('failed', (job, error) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
        this.logger.error(
          `Task ${clip(job.data?.taskId)}: a step failed for good (${loggableFailure(error)})`,
        );
    });
  }

  /** Queues the task's next step; rejects when Redis cannot take it. */
  async schedule(taskId: string): Promise<void> {
    if (!this.work || this.closed) throw new Error('The task runner is not running');
    checkTaskId(taskId);
    const generation = await this.generations.next(taskId);
    await this.queue.add('step', stepData(this.integrity, taskId, generation), {
      jobId: jobIdOf(taskId, generation),
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs },
      removeOnComplete: true,
      removeOnFail: { age: GENERATION_TTL_MS / 1000, count: 1000 },
    });
    if (generation > 1) await this.supersede(taskId, generation);
  }

  /** Ends every step of the task so far: a queued one is dropped, a running one aborted wherever it runs. */
  async cancel(taskId: string): Promise<void> {
    checkTaskId(taskId);
    // No step has the new generation: every one so far is below it.
    await this.supersede(taskId, await this.generations.next(taskId));
  }

  /**
   * Stops taking steps, aborts the running ones (each goes back to the queue for another
   * instance) and closes the runner's own connections.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.steps.abortAll(RUNNER_CLOSING);
    const worker = this.worker;
    if (worker) {
      // Graceful: no more fetching, and each aborted step hands itself back to the queue.
      const stopped = worker.close().catch(() => undefined);
      // A step deaf to its signal: drop the worker's connections, so its lock lapses and
      // another instance runs the step again.
      if (await settledWithin(stopped, this.options.closeTimeoutMs))
        await worker.disconnect().catch(() => undefined);
    }
    await this.queue.close().catch(() => undefined);
    this.aborts.close();
    this.workerClient?.disconnect();
  }

  /** Resolves once the runner hears cancels and, when attached with a worker, takes steps. */
  async whenReady(): Promise<void> {
    await this.aborts.ready;
    await this.worker?.waitUntilReady();
  }

  private runStep(job: Job<StepData>, token: string | undefined): Promise<void> {
    const run = this.runJob(job, token);
    this.inFlight.add(run);
    return run.finally(() => this.inFlight.delete(run));
  }

  private async runJob(job: Job<StepData>, token: string | undefined): Promise<void> {
    const step = authenticStep(this.integrity, job.id, job.data);
    if (!step) {
      // Edited in Redis (another task, another generation, a job of its own): never run.
      this.logger.warn(
        `A queued task step failed its integrity check and is dropped: ${this.options.prefix}:${this.options.queueName}:${clip(job.id)}`,
      );
      return;
    }
    const { taskId, generation } = step;
    const jobId = job.id as string;
    const controller = this.steps.start(jobId, taskId, generation);
    // A worker that is closing may still take a step: it goes straight back.
    if (this.closed) controller.abort(RUNNER_CLOSING);
    const lease: TaskStepLease = {
      // Extending the lock checks it is still this worker's, and keeps it a while longer.
      holds: async () =>
        token === undefined ||
        Number(await job.extendLock(token, this.options.lockDurationMs)) === 1,
    };
    try {
      await this.runCurrent(taskId, generation, controller.signal, lease);
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      this.steps.end(jobId);
    }
    if (controller.signal.reason === RUNNER_CLOSING && token) {
      await job.moveToWait(token);
      throw new this.bullmq.WaitingError();
    }
  }

  /** Runs the work unless the step was superseded or cancelled (registered before the check, so a later cancel is heard). */
  private async runCurrent(
    taskId: string,
    generation: number,
    signal: AbortSignal,
    lease: TaskStepLease,
  ) {
    const work = this.work;
    if (!work || signal.aborted || (await this.generations.current(taskId)) > generation) return;
    await work(taskId, signal, lease);
  }

  /** Aborts this task's steps below `generation` everywhere and drops a queued older one. */
  private async supersede(taskId: string, generation: number): Promise<void> {
    await this.aborts.publish(taskId, generation);
    this.steps.abortBelow(taskId, generation);
    // A step already taken by a worker is locked and stays; its abort above stops it.
    await this.queue.remove(jobIdOf(taskId, generation - 1)).catch(() => 0);
  }

  private redisErrorReported = false;

  private reportRedisError(error: Error): void {
    // One line per outage, not one per reconnection attempt.
    if (this.redisErrorReported) return;
    this.redisErrorReported = true;
    this.logger.warn(`Task runner cannot reach Redis (${loggableFailure(error)})`);
    setTimeout(() => (this.redisErrorReported = false), 30_000).unref();
  }
}

function checkTaskId(taskId: string): void {
  if (!TASK_ID.test(taskId)) throw new RangeError('Task ids are 1 to 128 of A-Z a-z 0-9 _ -');
}

/** Waits for `promise` at most `ms`; answers whether the time ran out first. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<true>((done) => (timer = setTimeout(() => done(true), ms)));
  try {
    return await Promise.race([promise.then(() => false).catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
