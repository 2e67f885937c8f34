import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { OccasionalWarning } from '../../kit/occasional-warning';
import type { RecordIntegrity } from '../../keyring/record-integrity';
import { ChannelPublishing } from '../../redis/channel-publishing';
import type { McpRedisConnection } from '../../redis/mcp-redis.connection';
import type { McpRedisConnectionClient } from '../../redis/mcp-redis-connection-client';
import { FleetBus } from './fleet-bus';
import type { FleetChannel } from './fleet-channel';
import { decodeFleetMessage, encodeFleetMessage, type FleetMessageReading } from './fleet-message';

/**
 * The Redis pub/sub channel (under the `redis.keyPrefix`) carrying every fleet channel's events.
 * @internal
 */
export const FLEET_REDIS_CHANNEL = 'fleet';

/**
 * The {@link FleetBus} of a fleet: events reach this instance's listeners at once and the other
 * instances' over one Redis pub/sub channel — published on the shared connection, received on a
 * subscriber connection of the module's own. Every message is tagged under the keyring; one that
 * fails it (not ours, edited, copied from another channel), is over its channel's bound or is not
 * one of its channel's events is dropped (said at most once per 30 s), and this instance's own are
 * skipped. While Redis is out, local delivery goes on and each channel logs one warning; once the
 * subscriber is back, resync listeners re-read what they follow, for what was missed.
 * @internal
 */
export class RedisFleetBus extends FleetBus implements OnModuleInit, OnApplicationShutdown {
  readonly fleet = true;
  private readonly logger = new Logger('McpFleet');
  private readonly dropped = new OccasionalWarning((line) => this.logger.warn(line));
  private readonly origin = randomBytes(12).toString('base64url');
  private readonly channel: string;
  private readonly reading: FleetMessageReading;
  /** Each channel's publishing health, so an outage is logged in the words of what it loses. */
  private readonly publishing = new Map<string, ChannelPublishing>();
  private subscriber: McpRedisConnectionClient | undefined;
  private closed = false;

  constructor(
    private readonly redis: McpRedisConnection,
    private readonly integrity: RecordIntegrity,
    /** Longest message of a channel without a bound of its own (`maxEventBytes`). */
    maxEventBytes: number,
  ) {
    super();
    this.channel = redis.key(FLEET_REDIS_CHANNEL);
    this.reading = {
      integrity,
      redisChannel: this.channel,
      maxBytesOf: (name) => this.channelNamed(name)?.maxBytes ?? maxEventBytes,
    };
  }

  onModuleInit(): void {
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    let subscribedBefore = false;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel && !this.closed) this.receive(text);
    });
    // Subscribing on every 'ready' (idempotent on Redis) and resyncing only once Redis has
    // confirmed it leaves no gap in which an event could be published unheard.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).then(
        () => {
          if (subscribedBefore && !this.closed) this.resyncAll();
          subscribedBefore = true;
        },
        // The connection is lost again; the next 'ready' subscribes.
        () => undefined,
      );
    });
  }

  publish<T>(channel: FleetChannel<T>, event: T): void {
    this.deliverHere(channel, event);
    if (this.closed) return;
    const message = encodeFleetMessage(
      { origin: this.origin, channel: channel.name, event },
      this.integrity,
      this.channel,
    );
    this.publishingOf(channel).track(
      this.redis.run((client) => client.publish(this.channel, message)),
      () => this.closed,
    );
  }

  onApplicationShutdown(): void {
    this.closed = true;
    // The connection itself is quit by McpRedisConnection, which owns it.
    this.subscriber?.removeAllListeners('message');
  }

  private receive(text: string): void {
    const message = decodeFleetMessage(text, this.reading);
    if (!message) return this.drop();
    if (message.origin === this.origin) return;
    const channel = this.channelNamed(message.channel);
    // A channel nothing here uses (an extension this instance leaves out) is not for it.
    if (!channel) return;
    const event = channel.decode(message.event);
    if (event === undefined) return this.drop();
    this.deliver(channel.name, event, 'remote');
  }

  private drop(): void {
    this.dropped.report(
      `A message on ${this.channel} is not one of the fleet's (unauthenticated, malformed or over its channel's bound) and is dropped`,
    );
  }

  private publishingOf(channel: FleetChannel<unknown>): ChannelPublishing {
    let publishing = this.publishing.get(channel.name);
    if (!publishing) {
      const { context, ...messages } = channel.publishing;
      publishing = new ChannelPublishing(new Logger(context), messages);
      this.publishing.set(channel.name, publishing);
    }
    return publishing;
  }
}
