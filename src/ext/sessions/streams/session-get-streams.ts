import type { ServerResponse } from 'node:http';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { SessionStore } from '../store/session-store.interface';
import type { SessionStream } from '../wire/session-stream';
import { SESSION_CHANNEL } from '../session-channel';
import { CHANGE_CHANNEL, FleetBus, StreamFanOut, type ChangeEvent } from '../../../extension-api';

/** A held stream as the fan-out writes it. */
interface HeldStream {
  readonly res: ServerResponse;
  readonly stream: SessionStream;
}

const LIST_CHANGED = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
} as const;

/**
 * The standalone `GET` streams of 2025-era sessions open on this instance, at most one per session
 * here, and what reaches them: list changes, updates of the resources the session subscribed to
 * (read from the session's record, wherever it subscribed), published on any instance — written in
 * slices through the fan-out listen streams use, a stream too far behind destroyed. A deleted
 * session's stream ends; all end before the application shuts down.
 * @internal
 */
@Injectable()
export class SessionGetStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpSessions');
  private readonly streams = new Map<string, HeldStream>();
  /** Writes a change to the held streams in slices, as listen streams are written. */
  private readonly fanOut = new StreamFanOut<HeldStream>();

  constructor(
    private readonly bus: FleetBus,
    @Inject(SessionStore) private readonly store: SessionStore,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe(CHANGE_CHANNEL, (event) => this.onChange(event));
    this.bus.subscribe(SESSION_CHANNEL, (event) => {
      if (event.kind !== 'closed') return;
      this.streams.get(event.sessionId)?.stream.end();
      this.streams.delete(event.sessionId);
    });
  }

  /** Holds `stream` for the session; `false` when this instance already holds one for it. */
  hold(sessionId: string, stream: SessionStream, closed: Promise<unknown>): boolean {
    if (this.streams.has(sessionId)) return false;
    const held: HeldStream = { res: stream.response, stream };
    this.streams.set(sessionId, held);
    void closed.finally(() => {
      if (this.streams.get(sessionId) === held) this.streams.delete(sessionId);
    });
    return true;
  }

  /** Streams held now. */
  get size(): number {
    return this.streams.size;
  }

  beforeApplicationShutdown(): void {
    this.fanOut.flushAll();
    for (const { stream } of this.streams.values()) stream.end();
    this.streams.clear();
  }

  private onChange(event: ChangeEvent): void {
    switch (event.kind) {
      case 'listChanged':
        return this.announce(
          [...this.streams.values()],
          LIST_CHANGED[event.list],
          JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED[event.list] }),
        );
      case 'resourceUpdated':
        void this.updated(event.uri);
        return;
      default:
        return;
    }
  }

  /**
   * Writes `json` to `streams` through the fan-out, each with its own event id; `key` says what it
   * says, so the same change announced again while it still waits for a stream is written once.
   */
  private announce(streams: readonly HeldStream[], key: string, json: string): void {
    this.fanOut.enqueue(streams, { key, textOf: ({ stream }) => stream.frameOf(json) });
  }

  /** Announces a resource's update to the held streams of sessions that subscribed to it. */
  private async updated(uri: string): Promise<void> {
    const store = this.store;
    const held = [...this.streams];
    const subscribed = await Promise.all(
      held.map(async ([sessionId]) => {
        try {
          return (await store.get(sessionId))?.subscriptions.includes(uri) === true;
        } catch (error) {
          this.logger.debug(
            `A resource update could not be checked against a session: ${String(error)}`,
          );
          return false;
        }
      }),
    );
    this.announce(
      held.filter((_, index) => subscribed[index]).map(([, stream]) => stream),
      `notifications/resources/updated ${uri}`,
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri },
      }),
    );
  }
}
