import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { OccasionalWarning } from '../../../kit/occasional-warning';
import { TaskEventBus, type TaskStatusEvent } from './task-event-bus';
import { decodeTaskEvent, encodeTaskEvent } from './task-event-message';
import {
  ChannelPublishing,
  type KeyringRecordIntegrity,
  type McpRedisConnection,
  type McpRedisConnectionClient,
} from '../../../extension-api';

/**
 * Channel (under the `redis.keyPrefix`) that carries task status changes between instances.
 * @internal
 */
export const TASK_EVENTS_CHANNEL = 'task-events';

/**
 * The {@link TaskEventBus} of a fleet: status changes reach this instance's listeners at once and
 * the other instances' over Redis pub/sub — published on the shared connection, received on a
 * subscriber connection of the module's own. Each message is tagged under the keyring; messages
 * that are not exactly a tagged event (logged at most once per 30 s), and this instance's own, are
 * ignored. While Redis is out, local delivery goes on and one warning is logged; once the
 * subscriber is back, listeners re-read what they follow, for what was missed.
 * @internal
 */
export class RedisTaskEventBus extends TaskEventBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private readonly forgedEvents = new OccasionalWarning((line) => this.logger.warn(line));
  private readonly origin = randomBytes(12).toString('base64url');
  private readonly channel: string;
  private subscriber: McpRedisConnectionClient | undefined;
  private readonly publishing = new ChannelPublishing(this.logger, {
    restored: 'Task status notifications reach the other instances again',
    failing: (reason) =>
      `Task status notifications cannot reach the other instances (${reason}); this instance's still get them`,
  });
  private closed = false;

  constructor(
    private readonly redis: McpRedisConnection,
    private readonly integrity: KeyringRecordIntegrity,
  ) {
    super();
    this.channel = redis.key(TASK_EVENTS_CHANNEL);
  }

  onModuleInit(): void {
    // Every message is tagged under the keyring; an untagged or forged one is ignored.
    this.integrity.ensureKey();
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    let subscribedBefore = false;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const event = decodeTaskEvent(message, this.integrity, this.channel);
      if (!event)
        this.forgedEvents.report(
          `A message on ${this.channel} is not one of the fleet's (unauthenticated or malformed) and is ignored`,
        );
      else if (event.origin !== this.origin)
        this.deliver({ taskId: event.taskId, version: event.version });
    });
    // Subscribing on every 'ready' (idempotent on Redis) and resyncing only once Redis has
    // confirmed it leaves no gap in which a change could be published unheard.
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

  publish(event: TaskStatusEvent): void {
    this.deliver(event);
    if (this.closed) return;
    const message = encodeTaskEvent(
      { origin: this.origin, ...event },
      this.integrity,
      this.channel,
    );
    this.publishing.track(
      this.redis.run((client) => client.publish(this.channel, message)),
      () => this.closed,
    );
  }

  onApplicationShutdown(): void {
    this.closed = true;
    // The connection itself is quit by McpRedisConnection, which owns it.
    this.subscriber?.removeAllListeners('message');
  }
}
