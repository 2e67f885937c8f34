import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { randomBytes } from 'node:crypto';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { clip } from '../../kit/clip';
import { TASK_STATUS_CHANNEL } from './events/task-status-channel';
import type { TaskStepOutcome } from './steps/task-step-outcome';
import { GuardedTaskStore } from './store/guarded-task-store';
import type { McpTaskError, McpTaskRecord } from './store/mcp-task.types';
import { TaskCapacityError } from './store/task-capacity.error';
import { isTaskId } from './store/task-id';
import type { TaskCreationLimits } from './store/task-store.interface';
import { settledFields, withoutUndefined } from './task-outcomes';
import { TASK_OPTIONS, type ResolvedTaskOptions } from './task.options';
import { FleetBus, McpTelemetry } from '../../extension-api';

/** The one answer to an unknown, expired or foreign task id. @internal */
export const UNKNOWN_TASK_MESSAGE = 'Unknown task';
const WRITE_ATTEMPTS = 8;

/** What a step's outcome becomes when the store has no room left to keep it. @internal */
export const NO_ROOM_FOR_OUTCOME: McpTaskError = {
  code: McpErrorCode.ServerBusy,
  message: 'Server busy: no room to keep the task result',
};

/**
 * A step that claimed its task: only the holder of `token` commits what the step ends with.
 * @internal
 */
export interface TaskClaim {
  readonly task: McpTaskRecord;
  readonly token: string;
  /**
   * The record as the claim stored it (its version): the step's commit compares-and-sets from it,
   * reading the store again only when the task moved on meanwhile.
   */
  readonly stored: McpTaskRecord;
}

/**
 * The tasks as the engine reads and writes them: every write is a compare-and-set on the store
 * (so a cancel racing a step's end, or two updates racing, settle to one consistent task) and a
 * status change is announced on the fleet bus. A step claims its task before it runs (a fresh
 * `stepToken` on the record) and commits only while its claim stands: a step that lost its
 * runner's lock, or was superseded, and carries on regardless never overwrites the one that took
 * over.
 * @internal
 */
@Injectable()
export class TaskRecords {
  private readonly logger = new Logger('McpTasks');
  readonly limits: TaskCreationLimits;

  constructor(
    @Inject(TASK_OPTIONS) private readonly options: ResolvedTaskOptions,
    readonly store: GuardedTaskStore,
    private readonly fleet: FleetBus,
    @Optional() private readonly telemetry?: McpTelemetry,
  ) {
    this.limits = {
      maxPerPartition: options.maxTasksPerCaller,
      maxBytesPerPartition: options.maxStoreBytesPerCaller,
    };
  }

  /**
   * Stores a new task. Nothing is announced on the bus: no stream can follow a task whose id its
   * caller has not been answered yet, and on a fleet each announcement is a `PUBLISH` every other
   * instance reads and checks. Its changes from here on are announced.
   */
  async create(task: McpTaskRecord): Promise<void> {
    await this.store.create(task, this.limits);
    this.telemetry?.taskStatus(task.taskId, task.flow?.id, task.status, {
      principal: task.partition,
      toolName: task.call.name,
    });
  }

  /**
   * The task `taskId`, whoever's it is; an unknown, expired or malformed id gets the same -32602
   * as another caller's.
   */
  async lookup(taskId: unknown): Promise<McpTaskRecord> {
    const task = isTaskId(taskId) ? await this.store.get(taskId) : undefined;
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
   * Claims a working task for a step about to run: a fresh token on the record, which only this
   * step's commits may present. Answers `undefined` when the task is not working any more.
   */
  async claim(taskId: string): Promise<TaskClaim | undefined> {
    const token = randomBytes(12).toString('base64url');
    let claimed: McpTaskRecord | undefined;
    const stored = await this.write(taskId, undefined, (task) => {
      claimed = task.status === 'working' ? { ...task, stepToken: token } : undefined;
      return claimed;
    });
    // Only what was written is a claim: an attempt whose compare-and-set lost claims nothing.
    return stored && claimed ? { task: claimed, token, stored } : undefined;
  }

  /**
   * Records a step's outcome, unless the task ended meanwhile (cancelled, expired) or another step
   * claimed it since (`token`). An outcome the store has no room for fails the task instead.
   * `claimed`, the record the step's claim stored, saves reading the task again when nothing
   * changed it since; the compare-and-set on its version decides either way.
   */
  async settle(
    taskId: string,
    outcome: TaskStepOutcome,
    token?: string,
    claimed?: McpTaskRecord,
  ): Promise<boolean> {
    const settled = settledFields(outcome, this.options.maxResultBytes);
    const change = (fields: Partial<McpTaskRecord>) => (task: McpTaskRecord) =>
      task.status === 'working' && task.stepToken === token
        ? { ...task, ...fields, statusMessage: undefined, stepToken: undefined }
        : undefined;
    try {
      return (await this.write(taskId, undefined, change(settled), claimed)) !== false;
    } catch (error) {
      if (!(error instanceof TaskCapacityError)) throw error;
      this.logger.warn(`Task ${clip(taskId)}: no room in the task store for its outcome; it fails`);
      const failed = { status: 'failed' as const, error: NO_ROOM_FOR_OUTCOME };
      return (await this.write(taskId, undefined, change(failed))) !== false;
    }
  }

  /** Records a running step's progress as the task's status message, while its claim stands. */
  async progress(taskId: string, message: string, token?: string): Promise<void> {
    await this.write(taskId, undefined, (task) =>
      task.status === 'working' && task.stepToken === token
        ? { ...task, statusMessage: clip(message, 256) }
        : undefined,
    ).catch(() => undefined);
  }

  /**
   * A task whose step could not be scheduled (its creating call, or the `tasks/update` that
   * resumed it, answered -32603): removed, or failed and expiring at once where the store cannot
   * remove, so it gives its caller's slot back.
   */
  async abandon(abandoned: McpTaskRecord, error: McpTaskError): Promise<void> {
    if (await this.store.remove(abandoned).catch(() => false)) return;
    await this.write(abandoned.taskId, undefined, (task) =>
      task.status === 'working'
        ? { ...task, status: 'failed', error, expiresAt: Date.now() + ABANDONED_TASK_LINGER_MS }
        : undefined,
    ).catch(() => undefined);
  }

  /**
   * Compare-and-set loop: `change` sees the current task and answers the next one (without
   * version and timestamps), or `undefined` to leave it. Answers whether it wrote. With a
   * `partition`, an unknown or foreign task is the -32602 for unknown tasks; without one, a task
   * gone meanwhile is nothing to write. `known`, a record this instance itself wrote last, is
   * tried first instead of a read (only without a partition, which a read must check): if the
   * task moved on since, its compare-and-set fails and the loop reads the store as usual.
   */
  async write(
    taskId: string,
    partition: string | undefined,
    change: (task: McpTaskRecord) => McpTaskRecord | undefined,
    known?: McpTaskRecord,
  ): Promise<McpTaskRecord | false> {
    let start = partition === undefined && known?.taskId === taskId ? known : undefined;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const current =
        start ??
        (partition === undefined
          ? await this.store.get(taskId)
          : this.owned(await this.lookup(taskId), partition));
      start = undefined;
      if (!current) return false;
      const changed = change(current);
      if (!changed) return false;
      const next: McpTaskRecord = {
        ...changed,
        version: current.version + 1,
        lastUpdatedAt: Math.max(Date.now(), current.lastUpdatedAt),
      };
      if (await this.store.replace(withoutUndefined(next), current.version, this.limits)) {
        if (next.status !== current.status) this.publish(next, current.status);
        return next;
      }
    }
    throw new ProtocolError(McpErrorCode.InternalError, 'Internal error');
  }

  private publish(task: McpTaskRecord, previousStatus: string): void {
    const { taskId, version, status, flow } = task;
    this.fleet.publish(TASK_STATUS_CHANNEL, { taskId, version });
    this.telemetry?.taskStatus(taskId, flow?.id, status, {
      previousStatus,
      principal: task.partition,
      toolName: task.call.name,
    });
  }
}

/**
 * How long an abandoned task lingers: a moment, so that a store which refuses an expiry already
 * past (Redis compares with its own clock) still takes the write.
 */
const ABANDONED_TASK_LINGER_MS = 1_000;
