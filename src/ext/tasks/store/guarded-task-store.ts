import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { internalError } from '../../../kit/errors/internal-error';
import { storeUnavailable } from '../../../kit/errors/store-unavailable';
import type { McpTaskRecord } from './mcp-task.types';
import { TaskCapacityError } from './task-capacity.error';
import { TaskStore, type TaskCreationLimits } from './task-store.interface';
import { OutageLog, loggableFailure, outageOf } from '../../../extension-api';

/** Key segment of tasks under the `redis.keyPrefix`: `<prefix>task:<taskId>`. @internal */
export const TASK_KEY_SEGMENT = 'task';

/**
 * The task store as the tasks engine uses it: the `tasks.store` port, whose outages (unreachable,
 * timing out, read-only, out of memory…) answer the caller `-32000 Server busy: the store is
 * unavailable` (logged once per outage) and whose other failures answer the bare -32603, logged
 * only by why (a Redis failure's reason, or the error's name), never by the error's message,
 * which may quote the store's own secrets.
 * @internal
 */
@Injectable()
export class GuardedTaskStore implements Omit<TaskStore, 'remove'> {
  private readonly logger = new Logger('McpTasks');
  private readonly outage = new OutageLog(this.logger, 'The task store');

  constructor(@Inject(TaskStore) private readonly store: TaskStore) {}

  create(task: McpTaskRecord, limits?: TaskCreationLimits): Promise<void> {
    return this.guarded('created', (store) => store.create(task, limits));
  }

  get(taskId: string): Promise<McpTaskRecord | undefined> {
    return this.guarded('read', (store) => store.get(taskId));
  }

  replace(
    next: McpTaskRecord,
    expectedVersion: number,
    limits?: TaskCreationLimits,
  ): Promise<boolean> {
    return this.guarded('updated', (store) => store.replace(next, expectedVersion, limits));
  }

  /** Forgets the task through the store's `remove`, or answers `false` when it has none. */
  async remove(task: McpTaskRecord): Promise<boolean> {
    const store = this.store;
    if (typeof store.remove !== 'function') return false;
    await this.guarded('removed', (chosen) =>
      (chosen.remove as NonNullable<TaskStore['remove']>).call(chosen, task),
    );
    return true;
  }

  private async guarded<T>(
    failedTo: 'created' | 'read' | 'updated' | 'removed',
    use: (store: TaskStore) => Promise<T>,
  ): Promise<T> {
    try {
      const result = await use(this.store);
      this.outage.answered();
      return result;
    } catch (error) {
      if (error instanceof TaskCapacityError || error instanceof ProtocolError) throw error;
      const unavailable = outageOf(error);
      if (unavailable !== undefined) {
        this.outage.failed(unavailable);
        throw storeUnavailable();
      }
      const reason = loggableFailure(error);
      this.logger.error(`A task could not be ${failedTo} (${reason})`);
      throw internalError();
    }
  }
}
