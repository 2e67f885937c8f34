import type { RecordIntegrity } from '../../keyring/record-integrity';

/** Domain of the messages' integrity tags. */
const MESSAGE_DOMAIN = 'fleet-message';
const ORIGIN = /^[A-Za-z0-9_-]{1,64}$/;
/** How every message's JSON starts: the channel first, so its bound applies before its tag. */
const CHANNEL_PREFIX = /^\{"channel":"([a-z][a-z0-9-]{0,63})","event":/;

/** One event as it travels between instances, before its channel read it. @internal */
export interface FleetMessage {
  /** The instance that published it, so that it can skip its own. */
  readonly origin: string;
  /** The name of its {@link FleetChannel}. */
  readonly channel: string;
  /** The event's parsed JSON, for the channel's `decode`. */
  readonly event: unknown;
}

/** Where a message was read and what bounds it. @internal */
export interface FleetMessageReading {
  readonly integrity: RecordIntegrity;
  /** The Redis channel (prefix included) the message travelled on: a copy on another is refused. */
  readonly redisChannel: string;
  /** Longest message of the channel of that name, in bytes. */
  readonly maxBytesOf: (channel: string) => number;
}

/**
 * `<origin> <tag> {"channel":<name>,"event":<event>}`: who sent it, its tag under the keyring
 * (over the Redis channel, the sender and the JSON, the channel's name inside it), the event.
 * @internal
 */
export function encodeFleetMessage(
  message: FleetMessage,
  integrity: RecordIntegrity,
  redisChannel: string,
): string {
  const json = `{"channel":${JSON.stringify(message.channel)},"event":${JSON.stringify(message.event)}}`;
  const tag = integrity.tag(MESSAGE_DOMAIN, [redisChannel, message.origin, json]);
  return `${message.origin} ${tag} ${json}`;
}

/**
 * The message in `text`, or `undefined` for anything that is not exactly one of the fleet's: not
 * framed as one, longer than its channel allows (checked before its tag), untagged or tagged with a
 * key the keyring does not hold or for another Redis channel, edited, not JSON.
 * @internal
 */
export function decodeFleetMessage(
  text: unknown,
  reading: FleetMessageReading,
): FleetMessage | undefined {
  if (typeof text !== 'string') return undefined;
  const first = text.indexOf(' ');
  const second = text.indexOf(' ', first + 1);
  if (first <= 0 || second <= first) return undefined;
  const origin = text.slice(0, first);
  const json = text.slice(second + 1);
  const channel = CHANNEL_PREFIX.exec(json)?.[1];
  if (!ORIGIN.test(origin) || channel === undefined) return undefined;
  const maxBytes = reading.maxBytesOf(channel);
  // Characters never outnumber bytes: the cheap check first, the exact one after.
  if (text.length > maxBytes || Buffer.byteLength(text) > maxBytes) return undefined;
  const tag = text.slice(first + 1, second);
  if (!reading.integrity.verify(tag, MESSAGE_DOMAIN, [reading.redisChannel, origin, json]))
    return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const fields = parsed as { channel?: unknown; event?: unknown };
  if (Object.keys(fields).length !== 2 || fields.channel !== channel || !('event' in fields))
    return undefined;
  return { origin, channel, event: fields.event };
}
