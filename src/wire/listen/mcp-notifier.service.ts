import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SessionEventBus } from '../fleet/session-event-bus';
import type { SessionEvent } from '../fleet/session-event';
import { ListenStreams } from './listen-streams';

/**
 * Announces changes to listening clients: the `subscriptions/listen` streams of 2026-07-28 clients
 * and the `GET` streams of 2025-era sessions, of this instance and — with the `redis` option — of
 * every instance sharing it.
 *
 * @example
 * ```ts
 * constructor(private readonly notifier: McpNotifier) {}
 * enableBetaTools() { this.flags.beta = true; this.notifier.toolsChanged(); }
 * ```
 * @publicApi
 */
@Injectable()
export class McpNotifier implements OnModuleInit, OnModuleDestroy {
  private unsubscribe: (() => void) | undefined;

  /** Made by the module (inject it): its dependencies are the module's own. @internal */
  constructor(
    private readonly listenStreams: ListenStreams,
    private readonly sessions: SessionEventBus,
  ) {}

  /** Nest's hook: follows the changes other instances of a fleet announce. */
  onModuleInit(): void {
    // Another instance's change reaches this instance's listen streams too.
    this.unsubscribe = this.sessions.subscribe((event, origin) => {
      if (origin === 'remote') this.toListenStreams(event);
    });
  }

  /** Nest's hook: stops following them. */
  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** Sends `notifications/tools/list_changed` to streams that asked for tool changes. */
  toolsChanged(): void {
    this.announce({ kind: 'listChanged', list: 'tools' });
  }

  /** Sends `notifications/prompts/list_changed` to streams that asked for prompt changes. */
  promptsChanged(): void {
    this.announce({ kind: 'listChanged', list: 'prompts' });
  }

  /** Sends `notifications/resources/list_changed` to streams that asked for resource-list changes. */
  resourcesChanged(): void {
    this.announce({ kind: 'listChanged', list: 'resources' });
  }

  /** Sends `notifications/resources/updated` for `uri` to streams subscribed to it. */
  resourceUpdated(uri: string): void {
    this.announce({ kind: 'resourceUpdated', uri });
  }

  private announce(event: SessionEvent): void {
    this.toListenStreams(event);
    this.sessions.publish(event);
  }

  private toListenStreams(event: SessionEvent): void {
    this.listenStreams.announce(event);
  }
}
