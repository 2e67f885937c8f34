import { randomBytes } from 'node:crypto';

/** A new task id: 128 random bits, base64url (22 characters). @internal */
export function newTaskId(): string {
  return randomBytes(16).toString('base64url');
}

/** Longest task id a client may name; longer ones cannot be ours and are unknown. @internal */
export const MAX_TASK_ID_LENGTH = 128;

const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Whether `value` could name a task: base64url, at most {@link MAX_TASK_ID_LENGTH} characters.
 * @internal
 */
export function isTaskId(value: unknown): value is string {
  return typeof value === 'string' && TASK_ID.test(value);
}
