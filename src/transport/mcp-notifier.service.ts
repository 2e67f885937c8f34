import { Injectable } from '@nestjs/common';
import { McpHttpEndpoint } from './mcp-http-endpoint.service';

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
  constructor(private readonly endpoint: McpHttpEndpoint) {}

  /** Sends `notifications/tools/list_changed` to streams that asked for tool changes. */
  toolsChanged(): void {
    this.endpoint.sdkHandler.notify.toolsChanged();
  }

  /** Sends `notifications/prompts/list_changed` to streams that asked for prompt changes. */
  promptsChanged(): void {
    this.endpoint.sdkHandler.notify.promptsChanged();
  }

  /** Sends `notifications/resources/list_changed` to streams that asked for resource-list changes. */
  resourcesChanged(): void {
    this.endpoint.sdkHandler.notify.resourcesChanged();
  }

  /** Sends `notifications/resources/updated` for `uri` to streams subscribed to it. */
  resourceUpdated(uri: string): void {
    this.endpoint.sdkHandler.notify.resourceUpdated(uri);
  }
}
