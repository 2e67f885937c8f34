import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { SERVER_OPTIONS, type ServerOptions } from '../protocol/server.options';
import type { ChangeEvent } from '../fleet/change-channel';
import {
  KEEP_ALIVE_FRAME,
  closingFrameOf,
  filterAccepts,
  notificationFrameOf,
  type ListenFilter,
  type NotificationFrame,
} from './listen-stream-frames';
import { StreamFanOut } from './stream-fan-out';
import { TRANSPORT_OPTIONS, type TransportOptions } from '../http/transport.options';

/** One open listen stream: its response, its JSON-encoded id and its filter. */
interface OpenStream {
  readonly res: ServerResponse;
  readonly idJson: string;
  readonly filter: ListenFilter;
}

/**
 * The open 2026-07-28 `subscriptions/listen` streams of this instance, served on Node's response
 * with the SDK's framing: each keeps only its response, its id and a compact filter. A change is
 * written to the streams open when it is announced, through the {@link StreamFanOut} both kinds of
 * held stream share (in slices; a change announced while the same one still waits for a stream is
 * that one; a stream too far behind is destroyed, without a final result: the client sees the
 * connection drop and listens again). Keep-alive comments go out on one timer for
 * all streams.
 * @internal
 */
@Injectable()
export class ListenStreams {
  private readonly open = new Set<OpenStream>();
  private readonly fanOut = new StreamFanOut<OpenStream>();
  private closed = false;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    @Inject(TRANSPORT_OPTIONS) private readonly transport: TransportOptions,
    @Inject(SERVER_OPTIONS) private readonly server: ServerOptions,
  ) {}

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Holds an acknowledged stream until its response closes (client gone, shutdown, backlog);
   * resolves then. The acknowledgement is already written.
   */
  hold(res: ServerResponse, idJson: string, filter: ListenFilter): Promise<void> {
    return new Promise((resolve) => {
      if (res.destroyed) return resolve();
      const stream: OpenStream = { res, idJson, filter };
      if (this.closed) {
        this.end(stream);
        return resolve();
      }
      this.open.add(stream);
      res.once('close', () => {
        this.open.delete(stream);
        if (this.open.size === 0) this.stopKeepAlive();
        resolve();
      });
      this.startKeepAlive();
    });
  }

  /** Writes a change to every open stream whose filter accepts it, in slices. */
  announce(event: ChangeEvent): void {
    const frame = notificationFrameOf(event);
    if (!frame || this.open.size === 0) return;
    const targets: OpenStream[] = [];
    for (const stream of this.open) if (filterAccepts(stream.filter, event)) targets.push(stream);
    this.enqueue(targets, frame);
  }

  /**
   * Ends every open stream with its final result, after the changes already announced, and
   * ends any stream held later at once (the application is shutting down).
   */
  closeAll(): void {
    this.closed = true;
    this.fanOut.flushAll();
    for (const stream of this.open) this.end(stream);
    this.stopKeepAlive();
  }

  private end(stream: OpenStream): void {
    const { res } = stream;
    if (res.destroyed || res.writableEnded) return;
    res.end(closingFrameOf(stream.idJson, this.server.serverInfo));
  }

  private enqueue(targets: readonly OpenStream[], frame: NotificationFrame | undefined): void {
    this.fanOut.enqueue(
      targets,
      frame
        ? { key: frame.key, textOf: (stream) => frame.head + stream.idJson + frame.tail }
        : { key: KEEP_ALIVE_FRAME, textOf: () => KEEP_ALIVE_FRAME },
    );
  }

  private startKeepAlive(): void {
    const ms = this.transport.keepAliveMs;
    // As the SDK's `armSseKeepAlive`: no keep-alive for 0; Node's longest timer otherwise.
    if (this.keepAlive || !Number.isFinite(ms) || ms < 1) return;
    this.keepAlive = setInterval(
      () => this.enqueue([...this.open], undefined),
      Math.min(ms, 2 ** 31 - 1),
    );
    this.keepAlive.unref();
  }

  private stopKeepAlive(): void {
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
