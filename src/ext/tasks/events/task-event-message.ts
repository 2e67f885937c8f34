import { MAX_TASK_ID_LENGTH } from '../store/task-id';
import type { TaskStatusEvent } from './task-event-bus';
import type { RecordIntegrity } from '../../../extension-api';

/** Longest message the Redis task event bus reads; anything longer is not one of ours. @internal */
export const MAX_TASK_EVENT_MESSAGE_LENGTH = 512;

const TOKEN = /^[A-Za-z0-9_-]+$/;
const EVENT_DOMAIN = 'task-event';

/**
 * One status change as it travels between instances: `<origin> <taskId> <version> <tag>`.
 * @internal
 */
export interface TaskEventMessage extends TaskStatusEvent {
  /** The instance that published it, so that it can skip its own. */
  readonly origin: string;
}

function tagged(message: TaskEventMessage): string[] {
  return [message.origin, message.taskId, String(message.version)];
}

/** The message for `event`, tagged under the keyring over `channel` and its fields. @internal */
export function encodeTaskEvent(
  event: TaskEventMessage,
  integrity?: RecordIntegrity,
  channel = '',
): string {
  const text = `${event.origin} ${event.taskId} ${event.version}`;
  return integrity ? `${text} ${integrity.tag(EVENT_DOMAIN, [channel, ...tagged(event)])}` : text;
}

/**
 * The event in `message`, or `undefined` for anything that is not exactly one of the fleet's: too
 * long, the wrong shape, a task id no task can have, a version that is not a positive safe integer,
 * or (with `integrity`) a tag the keyring did not make for exactly this message on `channel`.
 * @internal
 */
export function decodeTaskEvent(
  message: unknown,
  integrity?: RecordIntegrity,
  channel = '',
): TaskEventMessage | undefined {
  if (typeof message !== 'string' || message.length > MAX_TASK_EVENT_MESSAGE_LENGTH)
    return undefined;
  const parts = message.split(' ');
  if (parts.length !== (integrity ? 4 : 3)) return undefined;
  const [origin, taskId, spelledVersion, tag] = parts as [string, string, string, string?];
  const version = Number(spelledVersion);
  if (
    !TOKEN.test(origin) ||
    !TOKEN.test(taskId) ||
    taskId.length > MAX_TASK_ID_LENGTH ||
    !/^[1-9][0-9]{0,15}$/.test(spelledVersion) ||
    !Number.isSafeInteger(version)
  )
    return undefined;
  const event = { origin, taskId, version };
  if (integrity && !integrity.verify(tag, EVENT_DOMAIN, [channel, ...tagged(event)]))
    return undefined;
  return event;
}
