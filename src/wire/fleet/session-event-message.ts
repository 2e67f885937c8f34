import type { RecordIntegrity } from '../../keyring/record-integrity';
import type { JsonRpcId, SessionEvent } from './session-event';

/** Domain of the events' integrity tags. */
const EVENT_DOMAIN = 'session-event';
const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;
const LISTS: ReadonlySet<string> = new Set(['tools', 'prompts', 'resources']);
const OPERATION_KINDS: ReadonlySet<string> = new Set(['tool', 'prompt', 'resource']);

function isString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function isId(value: unknown): value is JsonRpcId {
  return isString(value, 256) || (typeof value === 'number' && Number.isFinite(value));
}

/** `<origin> <tag> <json>`: who sent it, its tag under the keyring, the event. @internal */
export function encodeSessionEvent(
  origin: string,
  event: SessionEvent,
  integrity: RecordIntegrity,
): string {
  const json = JSON.stringify(event);
  return `${origin} ${integrity.tag(EVENT_DOMAIN, [origin, json])} ${json}`;
}

/**
 * The event in `message` and who sent it, or `undefined` for anything that is not exactly one of
 * ours: too long, untagged or tagged with a key the keyring does not hold, the wrong shape.
 * @internal
 */
export function decodeSessionEvent(
  message: unknown,
  integrity: RecordIntegrity,
  maxLength: number,
): { origin: string; event: SessionEvent } | undefined {
  if (typeof message !== 'string' || message.length > maxLength) return undefined;
  const first = message.indexOf(' ');
  const second = message.indexOf(' ', first + 1);
  if (first <= 0 || second <= first) return undefined;
  const origin = message.slice(0, first);
  const json = message.slice(second + 1);
  if (
    !TOKEN.test(origin) ||
    !integrity.verify(message.slice(first + 1, second), EVENT_DOMAIN, [origin, json])
  )
    return undefined;
  let event: unknown;
  try {
    event = JSON.parse(json);
  } catch {
    return undefined;
  }
  return isSessionEvent(event) ? { origin, event } : undefined;
}

function isSessionEvent(value: unknown): value is SessionEvent {
  const event = value as Record<string, unknown> | null;
  if (event === null || typeof event !== 'object') return false;
  switch (event.kind) {
    case 'answer':
      return isString(event.sessionId, 64) && isId(event.id) && typeof event.response === 'string';
    case 'cancel':
      return isString(event.sessionId, 64) && isId(event.requestId);
    case 'closed':
      return isString(event.sessionId, 64);
    case 'listChanged':
      return typeof event.list === 'string' && LISTS.has(event.list);
    case 'resourceUpdated':
      return isString(event.uri, 65_536);
    case 'definitionsChanged':
      return (
        typeof event.operation === 'string' &&
        OPERATION_KINDS.has(event.operation) &&
        isString(event.name, 65_536)
      );
    default:
      return false;
  }
}
