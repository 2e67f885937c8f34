import { isTaskId } from '../store/task-id';
import { fleetChannel } from '../../../extension-api';

/** A task's status changed: which task, and the version that change was written as. @internal */
export interface TaskStatusEvent {
  readonly taskId: string;
  readonly version: number;
}

/** Longest message of the channel: a task id, a version and the framing. @internal */
export const MAX_TASK_STATUS_MESSAGE_BYTES = 512;

/**
 * The status change in `value` (another instance's message), or `undefined`: a task id no task
 * can have, or a version that is not a positive safe integer, is not one.
 * @internal
 */
export function decodeTaskStatus(value: unknown): TaskStatusEvent | undefined {
  const event = value as Record<string, unknown> | null;
  if (event === null || typeof event !== 'object') return undefined;
  const { taskId, version } = event;
  if (!isTaskId(taskId) || !Number.isSafeInteger(version) || (version as number) < 1)
    return undefined;
  return { taskId, version: version as number };
}

/**
 * The tasks' channel of the fleet bus: status changes reach the listen streams of every instance.
 * Only ids and versions travel: a listener re-reads the task from the store, with its own
 * partition check, so nothing about a task crosses the bus that the store does not already hold.
 * @internal
 */
export const TASK_STATUS_CHANNEL = fleetChannel<TaskStatusEvent>('tasks', decodeTaskStatus, {
  maxBytes: MAX_TASK_STATUS_MESSAGE_BYTES,
  publishing: {
    context: 'McpTasks',
    restored: 'Task status notifications reach the other instances again',
    failing: (reason) =>
      `Task status notifications cannot reach the other instances (${reason}); this instance's still get them`,
  },
});
