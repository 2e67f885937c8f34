import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { RecordIntegrity } from '../../keyring/record-integrity';
import type { McpRedisConnection } from '../../redis/mcp-redis.connection';
import type { McpRedisConnectionClient } from '../../redis/mcp-redis-connection-client';
import { ChannelPublishing } from '../../redis/channel-publishing';
import { SessionEventBus } from './session-event-bus';
import type { SessionEvent } from './session-event';
import { decodeSessionEvent, encodeSessionEvent } from './session-event-message';

/**
 * Channel (under the `redis.keyPrefix`) that carries session events between instances.
 * @internal
 */
export const SESSION_EVENTS_CHANNEL = 'session-events';

/**
 * The {@link SessionEventBus} of a fleet: events reach this instance's listeners at once and the
 * other instances' over Redis pub/sub — published on the shared connection, received on a
 * subscriber connection of the module's own. Every message carries a tag under the keyring; one
 * that fails it (not ours, edited, or over `maxMessageLength`), and this instance's own, are
 * dropped. While Redis is out, local delivery goes on and one warning is logged.
 * @internal
 */
export class RedisSessionEventBus
  extends SessionEventBus
  implements OnModuleInit, OnApplicationShutdown
{
  readonly fleet = true;
  private readonly logger = new Logger('McpSessions');
  private readonly origin = randomBytes(12).toString('base64url');
  private readonly channel: string;
  private subscriber: McpRedisConnectionClient | undefined;
  private readonly publishing = new ChannelPublishing(this.logger, {
    restored: 'Session events reach the other instances again',
    failing: (reason) =>
      `Session events cannot reach the other instances (${reason}): answers and notifications for sessions served elsewhere are lost meanwhile`,
  });
  private dropped = false;
  private closed = false;

  constructor(
    private readonly redis: McpRedisConnection,
    private readonly integrity: RecordIntegrity,
    /** Longest message read: an answer is at most one request body, plus its framing. */
    private readonly maxMessageLength: number,
  ) {
    super();
    this.channel = redis.key(SESSION_EVENTS_CHANNEL);
  }

  onModuleInit(): void {
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel || this.closed) return;
      const decoded = decodeSessionEvent(message, this.integrity, this.maxMessageLength);
      if (!decoded) return this.warnDropped();
      if (decoded.origin !== this.origin) this.deliver(decoded.event, 'remote');
    });
    // Subscribing on every 'ready' is idempotent on Redis and covers reconnections.
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel).catch(() => undefined);
    });
  }

  publish(event: SessionEvent): void {
    this.deliver(event, 'local');
    if (this.closed) return;
    const message = encodeSessionEvent(this.origin, event, this.integrity);
    this.publishing.track(
      this.redis.run((client) => client.publish(this.channel, message)),
      () => this.closed,
    );
  }

  private warnDropped(): void {
    if (this.dropped) return;
    this.dropped = true;
    this.logger.warn(
      `A message on ${this.channel} failed its integrity check or shape and was dropped (instances with different keyrings, or a foreign publisher); this is logged once`,
    );
  }

  onApplicationShutdown(): void {
    this.closed = true;
    // The connection itself is quit by McpRedisConnection, which owns it.
    this.subscriber?.removeAllListeners('message');
  }
}
