import { randomBytes } from 'node:crypto';

/**
 * A session id: 192 random bits as 32 base64url characters (visible ASCII, as 2025 requires).
 * @internal
 */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

const SESSION_ID = /^[A-Za-z0-9_-]{32}$/;

/**
 * Whether `value` is spelled as a session id of this module; anything else is not found.
 * @internal
 */
export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}
