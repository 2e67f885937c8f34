import { canonicalJson } from '../../../kit/canonical-json';
import type { JsonRpcId } from '../session-channel';

/** Longest request id a POST stream's event ids carry; a longer one makes its stream unresumable. */
const MAX_ID_JSON = 256;

/**
 * The event ids of a POST stream: `p.<request id, canonical JSON in base64url>.<n>`. They carry
 * the request's id so that a client resuming the stream (`GET` with `Last-Event-ID`) on any
 * instance can be told what became of that request. `undefined` when the id is too long to carry.
 * @internal
 */
export function postStreamEventPrefix(id: JsonRpcId): string | undefined {
  const json = canonicalJson(id);
  return json.length > MAX_ID_JSON ? undefined : `p.${Buffer.from(json).toString('base64url')}`;
}

/** The request id a POST stream's event id names, when it is one. @internal */
export function requestIdOfEventId(eventId: unknown): JsonRpcId | undefined {
  if (typeof eventId !== 'string' || eventId.length > 512) return undefined;
  const match = /^p\.([A-Za-z0-9_-]{1,400})\.[0-9]{1,9}$/.exec(eventId);
  if (!match) return undefined;
  try {
    const id: unknown = JSON.parse(Buffer.from(match[1] as string, 'base64url').toString('utf8'));
    return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))
      ? id
      : undefined;
  } catch {
    return undefined;
  }
}
