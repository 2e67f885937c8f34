import type { ServerResponse } from 'node:http';

/**
 * Most streams written to per macrotask of a fan-out (each write's socket flush follows it).
 * @internal
 */
export const FAN_OUT_SLICE = 128;

/** Time a fan-out macrotask may spend writing before it yields, on a busy machine. */
const FAN_OUT_SLICE_MS = 4;

/** Streams written between two looks at the clock. */
const CLOCK_EVERY = 16;

/**
 * Bytes a held stream may have waiting in its response and socket buffers when its next frame is
 * due. A client that reads slower than messages arrive is cut there rather than queued without end.
 * @internal
 */
export const MAX_STREAM_BACKLOG_BYTES = 64 * 1024;

/**
 * Whether a stream may be written its next frame: open, and no more than
 * {@link MAX_STREAM_BACKLOG_BYTES} unsent beyond `inFlightBytes` (the last message written, where
 * one message may be bigger than the bound). A stream over the bound is destroyed here (its client
 * sees the connection drop), so what a client that stopped reading holds stays bounded.
 * @internal
 */
export function withinBacklog(res: ServerResponse, inFlightBytes = 0): boolean {
  if (res.destroyed || res.writableEnded) return false;
  if (res.writableLength <= MAX_STREAM_BACKLOG_BYTES + inFlightBytes) return true;
  res.destroy();
  return false;
}

/** A held stream: what the fan-out writes to. @internal */
export interface FannedStream {
  readonly res: ServerResponse;
}

/**
 * Messages that may wait for one stream before a message saying what one of them says is dropped
 * (below it, every message announced is written, as the SDK writes them).
 * @internal
 */
export const FAN_OUT_COALESCE_AFTER = 256;

/** One message for the streams a fan-out writes to. @internal */
export interface FanOutFrame<S> {
  /**
   * What the message says, such that two messages of one key say the same thing (a list changed, a
   * resource was updated): once many wait for a stream, a later one of a key already waiting is
   * dropped.
   */
  readonly key: string;
  /** The text written to `stream`, made when it is written (a stream's event ids follow its writes). */
  readonly textOf: (stream: S) => string;
}

/** What waits for one stream: its messages, and — once there are many — the keys among them. */
interface Waiting<S> {
  readonly frames: FanOutFrame<S>[];
  keys: Set<string> | undefined;
}

/**
 * Writes notifications to many held streams without holding the event loop: at most
 * {@link FAN_OUT_SLICE} streams (and about `FAN_OUT_SLICE_MS` of writing) per macrotask, each
 * stream's messages in the order they were announced. What waits for a stream is bounded whatever
 * the rate of changes: past {@link FAN_OUT_COALESCE_AFTER} messages waiting, one that says what a
 * waiting one says is dropped (a storm of list changes is a bounded queue, and the client still
 * learns of the last change after it happened); and a stream whose client reads slower than its
 * messages are written is destroyed once its backlog passes {@link MAX_STREAM_BACKLOG_BYTES} (its
 * client sees the connection drop and reconnects). The one fan-out of both kinds of held stream:
 * 2026-07-28 listen streams and 2025-era sessions' `GET` streams.
 * @internal
 */
export class StreamFanOut<S extends FannedStream> {
  /** What waits for each stream, streams in the order they got something to write. */
  private readonly waiting = new Map<S, Waiting<S>>();
  private scheduled = false;

  /** Queues `frame` for each of `targets`, after what already waits for it. */
  enqueue(targets: readonly S[], frame: FanOutFrame<S>): void {
    for (const stream of targets) {
      const waiting = this.waiting.get(stream);
      if (!waiting) this.waiting.set(stream, { frames: [frame], keys: undefined });
      else if (waiting.frames.length < FAN_OUT_COALESCE_AFTER) waiting.frames.push(frame);
      else {
        waiting.keys ??= new Set(waiting.frames.map((waiter) => waiter.key));
        if (waiting.keys.has(frame.key)) continue;
        waiting.keys.add(frame.key);
        waiting.frames.push(frame);
      }
    }
    if (this.waiting.size > 0) this.schedule();
  }

  /** Writes everything queued now (before the streams are ended on shutdown). */
  flushAll(): void {
    this.flush(Number.POSITIVE_INFINITY);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush(FAN_OUT_SLICE, performance.now() + FAN_OUT_SLICE_MS);
      if (this.waiting.size > 0) this.schedule();
    });
  }

  /** Writes what waits for up to `budget` streams, those waiting longest first, until `deadline`. */
  private flush(budget: number, deadline = Number.POSITIVE_INFINITY): void {
    for (const [stream, { frames }] of this.waiting) {
      if (budget-- <= 0) return;
      this.waiting.delete(stream);
      for (const frame of frames) {
        if (!withinBacklog(stream.res)) break;
        stream.res.write(frame.textOf(stream));
      }
      if (budget % CLOCK_EVERY === 0 && performance.now() > deadline) return;
    }
  }
}
