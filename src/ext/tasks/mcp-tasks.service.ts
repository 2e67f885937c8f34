import { ProtocolError } from '@modelcontextprotocol/server';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { internalError } from '../../kit/errors/internal-error';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { clip } from '../../kit/clip';
import type { McpJsonValue } from '../../kit/json-value';
import { InProcessTaskRunner } from './runner/in-process-task.runner';
import type { TaskRunner } from './runner/task-runner.interface';
import { TaskRunnerCalls } from './runner/task-runner-calls';
import type { TaskStepOutcome } from './steps/task-step-outcome';
import { SHARED_RUNNER_HOLD_MS, TaskStepRequests } from './steps/task-step-requests';
import { TaskStepWork } from './steps/task-step.work';
import { TERMINAL_TASK_STATUSES, type McpTaskRecord } from './store/mcp-task.types';
import { TaskCapacityError } from './store/task-capacity.error';
import { newTaskId } from './store/task-id';
import { boundedAnswerForms, withAnswers } from './task-answers';
import { taskBusyError } from './task-busy';
import { failedStep } from './task-outcomes';
import { TaskRecords } from './task-records';
import { BullMqTaskRunner } from './runner/bullmq-task.runner';
import { TASK_OPTIONS, type ResolvedTaskOptions } from './task.options';
import {
  KeyringRecordIntegrity,
  loggableFailure,
  type HttpExchange,
  type TaskPrincipal,
} from '../../extension-api';

/** @internal */
export { UNKNOWN_TASK_MESSAGE } from './task-records';

/** What a task whose next step could not be scheduled ends with (the reason is logged). */
const NOT_SCHEDULED = { code: McpErrorCode.InternalError, message: 'Internal error' };

/**
 * The tasks engine: creates tasks, hands their steps to the runner with the request each runs on,
 * and serves `tasks/get`, `tasks/update` and `tasks/cancel` for the partition that created each
 * task. Its records are written through {@link TaskRecords}; the steps run as {@link TaskStepWork}.
 * @internal
 */
@Injectable()
export class McpTasksService implements OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private readonly runner: TaskRunner;
  private readonly runnerCalls: TaskRunnerCalls;
  /** Steps running in a request of this process (deferred creation), for cancel to reach. */
  private readonly inRequestSteps = new Map<string, AbortController>();

  constructor(
    @Inject(TASK_OPTIONS) readonly options: ResolvedTaskOptions,
    private readonly records: TaskRecords,
    private readonly requests: TaskStepRequests,
    work: TaskStepWork,
    integrity: KeyringRecordIntegrity,
  ) {
    this.runner = options.runner ?? new InProcessTaskRunner();
    if (this.runner instanceof BullMqTaskRunner) {
      // A runner that keeps steps outside the process authenticates them under the keyring.
      integrity.ensureKey();
      this.runner.authenticateRecordsWith(integrity);
    }
    // A runner that may give a step to another instance never says so here: hold its requests briefly.
    if (!(this.runner instanceof InProcessTaskRunner))
      this.requests.expireAfter(SHARED_RUNNER_HOLD_MS);
    this.runner.attach((taskId, signal, lease) => work.run(taskId, signal, lease));
    this.runnerCalls = new TaskRunnerCalls(this.runner, this.logger);
  }

  /** Creates a working task for a tool call; it exists in the store when this resolves. */
  async create(
    partition: string,
    call: McpTaskRecord['call'],
    ttlMs: number,
    inputResponses: Record<string, McpJsonValue>,
    requestState: string | undefined,
    principal?: TaskPrincipal,
    flow?: McpTaskRecord['flow'],
  ): Promise<McpTaskRecord> {
    const now = Date.now();
    const task: McpTaskRecord = {
      taskId: newTaskId(),
      version: 1,
      partition,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      expiresAt: now + ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
      call,
      ...boundedAnswerForms(inputResponses, this.options.maxInputResponseBytes),
      ...(requestState !== undefined && { requestState }),
      ...(principal !== undefined && { principal: principal as McpJsonValue }),
      ...(flow !== undefined && { flow }),
      runs: 1,
    };
    try {
      await this.records.create(task);
    } catch (error) {
      throw error instanceof TaskCapacityError ? taskBusyError(error) : error;
    }
    return task;
  }

  /**
   * Schedules the first step of a task just created, on `exchange`. When the runner cannot take it
   * the task is abandoned (its caller's slot free again) and the call answers as
   * {@link TaskRunnerCalls} says: `-32000` when the runner is away, else -32603.
   */
  start(task: McpTaskRecord, exchange: HttpExchange): Promise<void> {
    return this.scheduleOrAbandon(task, exchange);
  }

  /**
   * Schedules the step that answers resumed, on `exchange` (the `tasks/update` request); when the
   * runner cannot take it, answered and abandoned as in {@link start}.
   */
  resume(task: McpTaskRecord, exchange: HttpExchange): Promise<void> {
    return this.scheduleOrAbandon(task, exchange);
  }

  private async scheduleOrAbandon(task: McpTaskRecord, exchange: HttpExchange): Promise<void> {
    try {
      await this.schedule(task, exchange);
    } catch (error) {
      await this.records.abandon(task, NOT_SCHEDULED);
      throw error instanceof ProtocolError ? error : internalError();
    }
  }

  private async schedule(task: McpTaskRecord, exchange: HttpExchange): Promise<void> {
    this.requests.hold(task.taskId, exchange, task.version);
    try {
      await this.runnerCalls.call(task.taskId, ': its step could not be scheduled', (runner) =>
        runner.schedule(task.taskId),
      );
    } catch (error) {
      this.requests.release(task.taskId);
      throw error;
    }
  }

  /**
   * Tracks a step that runs inside the request that created the task (deferred creation): its
   * outcome is recorded like a runner's, and `tasks/cancel` aborts `controller`.
   */
  adoptInRequestStep(taskId: string, controller: AbortController, step: Promise<TaskStepOutcome>) {
    this.inRequestSteps.set(taskId, controller);
    void step
      .then(
        (outcome) => this.settle(taskId, outcome),
        (error: unknown) =>
          controller.signal.aborted ? undefined : this.settle(taskId, failedStep(taskId, error)),
      )
      .catch(() => undefined)
      .finally(() => this.inRequestSteps.delete(taskId));
  }

  /** The task, if it exists and belongs to `partition`; else the one -32602 for unknown tasks. */
  async find(taskId: unknown, partition: string): Promise<McpTaskRecord> {
    return this.records.owned(await this.records.lookup(taskId), partition);
  }

  /** The task `taskId`, whoever's it is (then {@link owned}); unknown ids get -32602. */
  lookup(taskId: unknown): Promise<McpTaskRecord> {
    return this.records.lookup(taskId);
  }

  /** `task`, if it is `partition`'s; else the -32602 an unknown id gets. */
  owned(task: McpTaskRecord, partition: string): McpTaskRecord {
    return this.records.owned(task, partition);
  }

  /**
   * Records answers to outstanding input requests. Unknown and already-answered keys are ignored;
   * a malformed answer to an outstanding request refuses the whole update and changes nothing.
   * Answers the task as written when that completed the answers (it is working again and its next
   * step is to be scheduled with {@link resume}), else `undefined`.
   */
  async update(
    taskId: string,
    partition: string,
    responses: Record<string, unknown>,
    principal?: TaskPrincipal,
  ): Promise<McpTaskRecord | undefined> {
    const written = await this.records.write(taskId, partition, (task) => {
      const answered = withAnswers(task, responses, this.options.maxInputResponseBytes);
      // The step this answer resumes runs as whoever gave it (the same partition).
      return answered && principal !== undefined
        ? { ...answered, principal: principal as McpJsonValue }
        : answered;
    });
    return written && written.status === 'working' ? written : undefined;
  }

  /**
   * Cancels a task that has not ended; a task that has is left as it is. A store that cannot answer
   * now is `-32000`, nothing changed. A runner that cannot be told now is `-32000` too, the cancel
   * standing: the client's retry, finding the task cancelled, tells the runner again.
   */
  async cancel(taskId: string, partition: string): Promise<void> {
    let cancelledBefore = false;
    const written = await this.failingBare(taskId, 'could not be cancelled', () =>
      this.records.write(taskId, partition, (task) => {
        cancelledBefore = task.status === 'cancelled';
        return TERMINAL_TASK_STATUSES.has(task.status)
          ? undefined
          : { ...task, status: 'cancelled', inputRequests: undefined, statusMessage: undefined };
      }),
    );
    if (!written && !cancelledBefore) return;
    if (written) {
      // A step still waiting for its turn will not run: nothing is held for it any more.
      this.requests.release(taskId);
      this.inRequestSteps.get(taskId)?.abort();
    }
    await this.runnerCalls.call(
      taskId,
      ' was cancelled, but its runner could not be told',
      (runner) => runner.cancel(taskId),
    );
  }

  /** `work`, or a bare -32603 with the reason logged when it fails for anything but the protocol. */
  private async failingBare<T>(taskId: string, what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      this.logger.error(`Task ${clip(taskId)} ${what} (${loggableFailure(error)})`);
      throw internalError();
    }
  }

  /** Records the progress of a step running in its creating request (deferred creation). */
  progress(taskId: string, message: string): Promise<void> {
    return this.records.progress(taskId, message);
  }

  /** Records the outcome of a step that claimed nothing (one that ran in its creating request). */
  async settle(taskId: string, outcome: TaskStepOutcome): Promise<void> {
    await this.records.settle(taskId, outcome);
  }

  async onApplicationShutdown(): Promise<void> {
    for (const controller of this.inRequestSteps.values()) controller.abort();
    await this.runner.close();
  }
}
