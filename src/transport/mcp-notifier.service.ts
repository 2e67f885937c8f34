import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SessionEventBus } from '../sessions/events/session-event-bus';
import type { SessionEvent } from '../sessions/events/session-event';
import { SdkHandlers } from './sdk-handlers';

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

  constructor(
    private readonly handlers: SdkHandlers,
    private readonly sessions: SessionEventBus,
  ) {}

  /** @internal */
  onModuleInit(): void {
    // Another instance's change reaches this instance's listen streams too.
    this.unsubscribe = this.sessions.subscribe((event, origin) => {
      if (origin === 'remote') this.toListenStreams(event);
    });
  }

  /** @internal */
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
    const notify = this.handlers.main.notify;
    if (event.kind === 'resourceUpdated') notify.resourceUpdated(event.uri);
    else if (event.kind === 'listChanged' && event.list === 'tools') notify.toolsChanged();
    else if (event.kind === 'listChanged' && event.list === 'prompts') notify.promptsChanged();
    else if (event.kind === 'listChanged') notify.resourcesChanged();
  }
}
