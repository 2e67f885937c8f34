import { Injectable } from '@nestjs/common';
import { SdkHandlers } from './sdk-handlers';

/**
 * Announces changes to clients listening on `subscriptions/listen` streams of this process.
 *
 * @example
 * ```ts
 * constructor(private readonly notifier: McpNotifier) {}
 * enableBetaTools() { this.flags.beta = true; this.notifier.toolsChanged(); }
 * ```
 * @publicApi
 */
@Injectable()
export class McpNotifier {
  constructor(private readonly handlers: SdkHandlers) {}

  /** Sends `notifications/tools/list_changed` to streams that asked for tool changes. */
  toolsChanged(): void {
    this.handlers.main.notify.toolsChanged();
  }

  /** Sends `notifications/prompts/list_changed` to streams that asked for prompt changes. */
  promptsChanged(): void {
    this.handlers.main.notify.promptsChanged();
  }

  /** Sends `notifications/resources/list_changed` to streams that asked for resource-list changes. */
  resourcesChanged(): void {
    this.handlers.main.notify.resourcesChanged();
  }

  /** Sends `notifications/resources/updated` for `uri` to streams subscribed to it. */
  resourceUpdated(uri: string): void {
    this.handlers.main.notify.resourceUpdated(uri);
  }
}
