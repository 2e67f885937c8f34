import { McpTelemetry } from '../observability/mcp-telemetry.service';
import { Inject, Injectable, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../errors/mcp-error-codes';
import type { McpJsonValue } from '../util/json-value';
import { clip } from '../util/clip';
import { InProcessTaskRunner } from './runner/in-process-task.runner';
import { TERMINAL_TASK_STATUSES, type McpTaskRecord } from './store/mcp-task.types';
import { TASK_OPTIONS, type ResolvedTaskOptions } from './task.options';
import { TaskCapacityError } from './store/task-capacity.error';
import type { TaskPrincipal } from '../identity/task-principal';
import { MAX_TASK_ID_LENGTH, newTaskId } from './store/task-id';
import type { TaskRunner } from './runner/task-runner.interface';
import type { TaskExecutor, TaskStepOutcome } from './steps/task-step-outcome';
import { TaskStepExecutor } from './steps/task-step.executor';
import { TaskEventBus } from './events/task-event-bus';
import { GuardedTaskStore } from './store/guarded-task-store';
import type { TaskStore } from './store/task-store.interface';
import { failedStep, settledFields, withoutUndefined } from './task-outcomes';
import { answerForms, withAnswers } from './task-answers';

/** The one answer to an unknown, expired or foreign task id. */
export const UNKNOWN_TASK_MESSAGE = 'Unknown task';
const WRITE_ATTEMPTS = 8;

/**
 * The tasks engine: creates tasks, runs their steps through the runner, records what each step
 * ended with, and serves `tasks/get`, `tasks/update` and `tasks/cancel` for the partition that
 * created each task. Every write is a compare-and-set on the store, so a cancel racing a step's
 * end, or two updates racing each other, settle to one consistent task.
 * @internal
 */
@Injectable()
export class McpTasksService implements OnApplicationShutdown {
  readonly store: TaskStore;
  private readonly runner: TaskRunner;
  /** Steps running in a request of this process (deferred creation), for cancel to reach. */
  private readonly inRequestSteps = new Map<string, AbortController>();

  constructor(
    @Inject(TASK_OPTIONS) readonly options: ResolvedTaskOptions,
    @Inject(GuardedTaskStore) store: TaskStore,
    private readonly events: TaskEventBus,
    @Inject(TaskStepExecutor) private readonly executor: TaskExecutor,
    @Optional() private readonly telemetry?: McpTelemetry,
  ) {
    this.store = store;
    this.runner = options.runner ?? new InProcessTaskRunner();
    this.runner.attach((taskId, signal) => this.runStep(taskId, signal));
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
      ...answerForms(inputResponses),
      ...(requestState !== undefined && { requestState }),
      ...(principal !== undefined && { principal: principal as McpJsonValue }),
      ...(flow !== undefined && { flow }),
      runs: 1,
    };
    try {
      await this.store.create(task, { maxPerPartition: this.options.maxTasksPerCaller });
    } catch (error) {
      if (error instanceof TaskCapacityError)
        throw error.scope === 'caller'
          ? new ProtocolError(
              McpErrorCode.ServerBusy,
              'Server busy: too many tasks for this caller',
              {
                maxTasksPerCaller: error.maxTasks,
              },
            )
          : new ProtocolError(McpErrorCode.ServerBusy, 'Server busy: too many tasks', {
              maxTasks: error.maxTasks,
            });
      throw error;
    }
    this.publish(task);
    return task;
  }

  /** Runs the task's next step through the runner. */
  schedule(taskId: string): Promise<void> {
    return this.runner.schedule(taskId);
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
      .finally(() => this.inRequestSteps.delete(taskId));
  }

  /** The task, if it exists and belongs to `partition`; else the one -32602 for unknown tasks. */
  async find(taskId: unknown, partition: string): Promise<McpTaskRecord> {
    return this.owned(await this.lookup(taskId), partition);
  }

  /**
   * The task `taskId`, whoever's it is: for deciding whose guards decide who the caller is (then
   * {@link owned}). An unknown, expired or malformed id gets the same -32602 as another caller's.
   */
  async lookup(taskId: unknown): Promise<McpTaskRecord> {
    const task =
      typeof taskId === 'string' && taskId.length <= MAX_TASK_ID_LENGTH
        ? await this.store.get(taskId)
        : undefined;
    if (!task) throw new ProtocolError(McpErrorCode.InvalidParams, UNKNOWN_TASK_MESSAGE);
    return task;
  }

  /** `task`, if it is `partition`'s; else the -32602 an unknown id gets. */
  owned(task: McpTaskRecord, partition: string): McpTaskRecord {
    if (task.partition !== partition)
      throw new ProtocolError(McpErrorCode.InvalidParams, UNKNOWN_TASK_MESSAGE);
    return task;
  }

  /**
   * Records answers to outstanding input requests. Unknown and already-answered keys are ignored;
   * a malformed answer to an outstanding request refuses the whole update and changes nothing.
   * Answers whether that completed the answers, so the task is working again and its next step
   * is to be scheduled.
   */
  async update(
    taskId: string,
    partition: string,
    responses: Record<string, unknown>,
    principal?: TaskPrincipal,
  ): Promise<boolean> {
    let resumed = false;
    const written = await this.write(taskId, partition, (task) => {
      const answered = withAnswers(task, responses, this.options.maxInputResponseBytes);
      resumed = answered?.status === 'working';
      // The step this answer resumes runs as whoever gave it (the same partition).
      return answered && principal !== undefined
        ? { ...answered, principal: principal as McpJsonValue }
        : answered;
    });
    return resumed && written;
  }

  /** Cancels a task that has not ended; a task that has is left as it is. */
  async cancel(taskId: string, partition: string): Promise<void> {
    const written = await this.write(taskId, partition, (task) =>
      TERMINAL_TASK_STATUSES.has(task.status)
        ? undefined
        : { ...task, status: 'cancelled', inputRequests: undefined, statusMessage: undefined },
    );
    if (!written) return;
    this.inRequestSteps.get(taskId)?.abort();
    await this.runner.cancel(taskId);
  }

  /** Records a running step's progress as the task's status message. */
  async progress(taskId: string, message: string): Promise<void> {
    await this.write(taskId, undefined, (task) =>
      task.status === 'working' ? { ...task, statusMessage: clip(message, 256) } : undefined,
    ).catch(() => undefined);
  }

  /** One step of a task, as the runner calls it. */
  private async runStep(taskId: string, signal: AbortSignal): Promise<void> {
    const task = await this.store.get(taskId);
    if (!task || task.status !== 'working' || signal.aborted) return;
    let outcome: TaskStepOutcome;
    try {
      outcome = await this.executor.run(task, {
        signal,
        progress: (message) => this.progress(taskId, message),
      });
    } catch (error) {
      // A cancelled step gave up as asked; the task already says so.
      if (signal.aborted) return;
      outcome = failedStep(taskId, error);
    }
    if (!signal.aborted) await this.settle(taskId, outcome);
  }

  /** Records a step's outcome, unless the task ended meanwhile (cancelled, expired). */
  async settle(taskId: string, outcome: TaskStepOutcome): Promise<void> {
    const settled = settledFields(outcome, this.options.maxResultBytes);
    await this.write(taskId, undefined, (task) =>
      task.status === 'working' ? { ...task, ...settled, statusMessage: undefined } : undefined,
    );
  }

  /**
   * Compare-and-set loop: `change` sees the current task and answers the next one (without
   * version and timestamps), or `undefined` to leave it. Answers whether it wrote. With a
   * `partition`, an unknown or foreign task is the -32602 for unknown tasks; without one, a task
   * gone meanwhile is nothing to write.
   */
  private async write(
    taskId: string,
    partition: string | undefined,
    change: (task: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<boolean> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const current =
        partition === undefined ? await this.store.get(taskId) : await this.find(taskId, partition);
      if (!current) return false;
      const changed = change(current);
      if (!changed) return false;
      const next: McpTaskRecord = {
        ...changed,
        version: current.version + 1,
        lastUpdatedAt: Math.max(Date.now(), current.lastUpdatedAt),
      };
      if (await this.store.replace(withoutUndefined(next), current.version)) {
        if (next.status !== current.status) this.publish(next);
        return true;
      }
    }
    throw new ProtocolError(McpErrorCode.InternalError, 'Internal error');
  }

  private publish({ taskId, version, status, flow }: McpTaskRecord): void {
    this.events.publish({ taskId, version });
    this.telemetry?.taskStatus(taskId, flow?.id, status);
  }

  async onApplicationShutdown(): Promise<void> {
    for (const controller of this.inRequestSteps.values()) controller.abort();
    await this.runner.close();
  }
}
