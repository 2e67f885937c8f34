import type { ChannelPublishingMessages } from '../../redis/channel-publishing';

/** Whether a fleet event was published by this instance or came from another. @internal */
export type FleetOrigin = 'local' | 'remote';

/**
 * What a channel's publisher logs, under the logger context `context`, when its messages stop
 * reaching the other instances and when they reach them again (once each per outage).
 * @internal
 */
export interface FleetChannelPublishing extends ChannelPublishingMessages {
  readonly context: string;
}

/** How a {@link fleetChannel} is bounded and what it logs. @internal */
export interface FleetChannelOptions {
  /**
   * Longest message of the channel read from another instance, in bytes, its framing (sender, tag,
   * channel name) included; longer ones are dropped unread. Default: the bus's `maxEventBytes`
   * (`NOTIFICATION_OPTIONS`), room for one request body escaped inside an event.
   */
  readonly maxBytes?: number;
  /** What publishing failures are logged as; default a line naming the channel. */
  readonly publishing?: FleetChannelPublishing;
}

/**
 * One named channel of the {@link FleetBus}: its events are delivered only to its own listeners,
 * and an event read from another instance reaches them only once `decode` accepted it. A value
 * made once, where its events are defined (the core's changes, an extension's own), and shared by
 * publishers and listeners.
 * @internal
 */
export interface FleetChannel<T> {
  /** Unique on the bus; travels inside every message of the channel, under its tag. */
  readonly name: string;
  /** The event in a message's parsed JSON, or `undefined` for anything that is not exactly one. */
  readonly decode: (value: unknown) => T | undefined;
  /** See {@link FleetChannelOptions.maxBytes}; `undefined` for the bus's bound. */
  readonly maxBytes: number | undefined;
  readonly publishing: FleetChannelPublishing;
}

const CHANNEL_NAME = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * A channel of the fleet bus named `name` (lower-case letters, digits and dashes), whose events
 * another instance's messages are read into by `decode`.
 *
 * @example
 * ```ts
 * export const TASK_STATUS_CHANNEL = fleetChannel('tasks', decodeTaskStatus, { maxBytes: 512 });
 * bus.subscribe(TASK_STATUS_CHANNEL, ({ taskId }) => feed.read(taskId));
 * ```
 * @internal
 */
export function fleetChannel<T>(
  name: string,
  decode: (value: unknown) => T | undefined,
  options: FleetChannelOptions = {},
): FleetChannel<T> {
  if (!CHANNEL_NAME.test(name))
    throw new Error(
      `A fleet channel's name is lower-case letters, digits and dashes, at most 64: "${name}"`,
    );
  const { maxBytes } = options;
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes <= 0))
    throw new Error(`The fleet channel "${name}" needs a positive integer maxBytes`);
  return Object.freeze({
    name,
    decode,
    maxBytes,
    publishing: options.publishing ?? {
      context: 'McpFleet',
      restored: `Fleet events of channel ${name} reach the other instances again`,
      failing: (reason: string) =>
        `Fleet events of channel ${name} cannot reach the other instances (${reason}); this instance's listeners still get them`,
    },
  });
}
