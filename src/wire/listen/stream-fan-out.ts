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
 * Bytes a stream may have waiting in its response and socket buffers when its next frame is due.
 * A client that reads slower than changes arrive is closed there rather than queued without end.
 * @internal
 */
export const MAX_STREAM_BACKLOG_BYTES = 64 * 1024;

/** A held stream: what the fan-out writes to. @internal */
export interface FannedStream {
  readonly res: ServerResponse;
}

/** One frame being written to the streams that were open and wanted it when it was announced. */
interface FanOut<S> {
  readonly targets: readonly S[];
  /** The text written to each stream (its own id spliced in, where it has one). */
  readonly textOf: (stream: S) => string;
  next: number;
}

/**
 * Writes notifications to many held streams without holding the event loop: at most
 * {@link FAN_OUT_SLICE} streams (and about `FAN_OUT_SLICE_MS` of writing) per macrotask, one
 * notification after another (so each stream gets them in the order they were announced). A
 * stream backed up beyond {@link MAX_STREAM_BACKLOG_BYTES} when its next frame is due is destroyed:
 * its client sees the connection drop and reconnects. The one fan-out of both kinds of held
 * stream: 2026-07-28 listen streams and 2025-era sessions' `GET` streams.
 * @internal
 */
export class StreamFanOut<S extends FannedStream> {
  private readonly pending: FanOut<S>[] = [];
  private scheduled = false;

  /** Queues `textOf(stream)` for each of `targets`, after what is already queued. */
  enqueue(targets: readonly S[], textOf: (stream: S) => string): void {
    if (targets.length === 0) return;
    this.pending.push({ targets, textOf, next: 0 });
    this.schedule();
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
      if (this.pending.length > 0) this.schedule();
    });
  }

  /** Writes up to `budget` stream frames of the pending fan-outs, oldest first, until `deadline`. */
  private flush(budget: number, deadline = Number.POSITIVE_INFINITY): void {
    while (budget > 0 && this.pending.length > 0) {
      const fanOut = this.pending[0];
      const { targets, textOf } = fanOut;
      while (fanOut.next < targets.length && budget > 0) {
        const stream = targets[fanOut.next++];
        if (--budget % CLOCK_EVERY === 0 && performance.now() > deadline) budget = 0;
        write(stream.res, () => textOf(stream));
      }
      if (fanOut.next === targets.length) this.pending.shift();
    }
  }
}

function write(res: ServerResponse, text: () => string): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.writableLength > MAX_STREAM_BACKLOG_BYTES) {
    res.destroy();
    return;
  }
  res.write(text());
}
