import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { SERVER_OPTIONS, type ServerOptions } from '../protocol/server.options';
import type { SessionEvent } from '../notifications/session-event';
import {
  KEEP_ALIVE_FRAME,
  closingFrameOf,
  filterAccepts,
  notificationFrameOf,
  type ListenFilter,
  type NotificationFrame,
} from './listen-stream-frames';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';

/** Most streams written to per macrotask of a fan-out (each write's socket flush follows it). */
export const FAN_OUT_SLICE = 128;

/** Time a fan-out macrotask may spend writing before it yields, on a busy machine. */
const FAN_OUT_SLICE_MS = 4;

/** Streams written between two looks at the clock. */
const CLOCK_EVERY = 16;

/**
 * Bytes a stream may have waiting in its response and socket buffers when its next frame is due.
 * A client that reads slower than changes arrive is closed there rather than queued without end.
 */
export const MAX_STREAM_BACKLOG_BYTES = 64 * 1024;

/** One open listen stream: its response, its JSON-encoded id and its filter. */
interface OpenStream {
  readonly res: ServerResponse;
  readonly idJson: string;
  readonly filter: ListenFilter;
}

/** One frame being written to the streams that were open and wanted it when it was announced. */
interface FanOut {
  readonly targets: readonly OpenStream[];
  /** The change's frame; none for a keep-alive comment. */
  readonly frame: NotificationFrame | undefined;
  next: number;
}

/**
 * The open 2026-07-28 `subscriptions/listen` streams of this instance, served on Node's response
 * with the SDK's framing: each keeps only its response, its id and a compact filter. A change is
 * written to the streams open when it is announced, at most {@link FAN_OUT_SLICE} of them (and
 * about `FAN_OUT_SLICE_MS` of writing) per macrotask, changes one after another (so each stream gets them in announcement order). Keep-alive comments
 * go out on one timer for all streams. A stream backed up beyond {@link MAX_STREAM_BACKLOG_BYTES}
 * is destroyed (no final result: the client sees the connection drop and listens again).
 * @internal
 */
@Injectable()
export class ListenStreams {
  private readonly open = new Set<OpenStream>();
  private readonly pending: FanOut[] = [];
  private scheduled = false;
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
  announce(event: SessionEvent): void {
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
    this.flush(Number.POSITIVE_INFINITY);
    for (const stream of this.open) this.end(stream);
    this.stopKeepAlive();
  }

  private end(stream: OpenStream): void {
    const { res } = stream;
    if (res.destroyed || res.writableEnded) return;
    res.end(closingFrameOf(stream.idJson, this.server.serverInfo));
  }

  private enqueue(targets: readonly OpenStream[], frame: NotificationFrame | undefined): void {
    if (targets.length === 0) return;
    this.pending.push({ targets, frame, next: 0 });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush(FAN_OUT_SLICE, performance.now() + FAN_OUT_SLICE_MS);
      if (this.pending.length > 0) this.schedule();
    });
  }

  /** Writes up to `budget` stream frames of the pending fan-outs, oldest first, until `deadline`. */
  private flush(budget: number, deadline = Number.POSITIVE_INFINITY): void {
    while (budget > 0 && this.pending.length > 0) {
      const fanOut = this.pending[0];
      const { targets, frame } = fanOut;
      while (fanOut.next < targets.length && budget > 0) {
        const stream = targets[fanOut.next++];
        if (--budget % CLOCK_EVERY === 0 && performance.now() > deadline) budget = 0;
        this.write(stream, frame ? frame.head + stream.idJson + frame.tail : KEEP_ALIVE_FRAME);
      }
      if (fanOut.next === targets.length) this.pending.shift();
    }
  }

  private write(stream: OpenStream, text: string): void {
    const { res } = stream;
    if (res.destroyed || res.writableEnded) return;
    if (res.writableLength > MAX_STREAM_BACKLOG_BYTES) {
      res.destroy();
      return;
    }
    res.write(text);
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
