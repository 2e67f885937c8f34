import { MAX_TASK_ID_LENGTH } from '../store/task-id';
import type { TaskStatusEvent } from './task-event-bus';

/** Longest message the Redis task event bus reads; anything longer is not one of ours. */
export const MAX_TASK_EVENT_MESSAGE_LENGTH = 256;

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** One status change as it travels between instances: `<origin> <taskId> <version>`. */
export interface TaskEventMessage extends TaskStatusEvent {
  /** The instance that published it, so that it can skip its own. */
  readonly origin: string;
}

export function encodeTaskEvent({ origin, taskId, version }: TaskEventMessage): string {
  return `${origin} ${taskId} ${version}`;
}

/**
 * The event in `message`, or `undefined` for anything that is not exactly one: too long, the
 * wrong shape, a task id no task can have, a version that is not a positive safe integer.
 */
export function decodeTaskEvent(message: unknown): TaskEventMessage | undefined {
  if (typeof message !== 'string' || message.length > MAX_TASK_EVENT_MESSAGE_LENGTH)
    return undefined;
  const parts = message.split(' ');
  if (parts.length !== 3) return undefined;
  const [origin, taskId, spelledVersion] = parts as [string, string, string];
  const version = Number(spelledVersion);
  if (
    !TOKEN.test(origin) ||
    !TOKEN.test(taskId) ||
    taskId.length > MAX_TASK_ID_LENGTH ||
    !/^[1-9][0-9]{0,15}$/.test(spelledVersion) ||
    !Number.isSafeInteger(version)
  )
    return undefined;
  return { origin, taskId, version };
}
