import {
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { McpPorts } from '../../../ports/mcp-ports.service';
import { SessionEventBus } from '../../../notifications/session-event-bus';
import type { SessionEvent } from '../../../notifications/session-event';
import { SESSION_STORE_PORT } from '../store/session-store.interface';
import type { SessionStream } from '../wire/session-stream';

const LIST_CHANGED = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
} as const;

/**
 * The standalone `GET` streams of 2025-era sessions open on this instance, at most one per session
 * here, and what reaches them: list changes, updates of the resources the session subscribed to
 * (read from the session's record, wherever it subscribed), published on any instance. A deleted
 * session's stream ends; all end before the application shuts down.
 * @internal
 */
@Injectable()
export class SessionGetStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpSessions');
  private readonly streams = new Map<string, SessionStream>();

  constructor(
    private readonly bus: SessionEventBus,
    private readonly ports: McpPorts,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe((event) => this.onEvent(event));
  }

  /** Holds `stream` for the session; `false` when this instance already holds one for it. */
  hold(sessionId: string, stream: SessionStream, closed: Promise<unknown>): boolean {
    if (this.streams.has(sessionId)) return false;
    this.streams.set(sessionId, stream);
    void closed.finally(() => {
      if (this.streams.get(sessionId) === stream) this.streams.delete(sessionId);
    });
    return true;
  }

  /** Streams held now. */
  get size(): number {
    return this.streams.size;
  }

  beforeApplicationShutdown(): void {
    for (const stream of this.streams.values()) stream.end();
    this.streams.clear();
  }

  private onEvent(event: SessionEvent): void {
    switch (event.kind) {
      case 'listChanged':
        for (const stream of this.streams.values())
          stream.send({ jsonrpc: '2.0', method: LIST_CHANGED[event.list] });
        return;
      case 'resourceUpdated':
        for (const [sessionId, stream] of this.streams)
          void this.updated(sessionId, stream, event.uri);
        return;
      case 'closed':
        this.streams.get(event.sessionId)?.end();
        this.streams.delete(event.sessionId);
        return;
      default:
        return;
    }
  }

  private async updated(sessionId: string, stream: SessionStream, uri: string): Promise<void> {
    try {
      const session = await this.ports.get(SESSION_STORE_PORT).get(sessionId);
      if (session?.subscriptions.includes(uri))
        stream.send({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
    } catch (error) {
      this.logger.debug(
        `A resource update could not be checked against a session: ${String(error)}`,
      );
    }
  }
}
