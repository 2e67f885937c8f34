import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { BodyReservation } from './body-byte-budget';
import { DeadlineLane } from '../../kit/deadline-lane';

/** The body of a request, or why it could not be read. @internal */
export type RequestBodyRead =
  | { ok: true; text: string }
  | { ok: false; reason: 'too_large' | 'aborted' | 'timeout' | 'over_budget' };

function ignoreLateError(): void {}

/** What a body reader does with each event of the request it watches. */
interface BodyWatch<T> {
  /** A chunk arrived while still watching; `settle` stops early with an outcome. */
  onData(chunk: Buffer, settle: (outcome: T) => void): void;
  /** The outcome when the body ends. */
  onEnd(): T;
  /** The outcome when `timeoutMs` passes first. */
  onTimeout(): T;
  /** The outcome when the request errors or is aborted. */
  readonly aborted: T;
  /** Drops what the reader holds, once settled. */
  release?(): void;
}

/** The read-time deadlines of bodies, one lane per time allowed (a setting: a few at most). */
const lanes = new Map<number, DeadlineLane>();

function laneOf(timeoutMs: number): DeadlineLane {
  let lane = lanes.get(timeoutMs);
  if (!lane) lanes.set(timeoutMs, (lane = new DeadlineLane(timeoutMs)));
  return lane;
}

/**
 * Watches a request's body until it ends, fails, runs out of time or the reader settles early;
 * the first outcome wins, and every listener it added is removed then.
 */
function watchBody<T>(req: IncomingMessage, timeoutMs: number, watch: BodyWatch<T>): Promise<T> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: T) => {
      if (settled) return;
      settled = true;
      lane.cancel(deadline);
      // A listen stream keeps its request for hours: drop what the listeners hold (chunks, text),
      // keeping one that holds nothing so a late 'error' is never an uncaught exception.
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('aborted', onAbort);
      req.on('error', ignoreLateError);
      watch.release?.();
      resolve(outcome);
    };
    const lane = laneOf(timeoutMs);
    const deadline = lane.add(() => settle(watch.onTimeout()));
    const onData = (chunk: Buffer) => {
      if (!settled) watch.onData(chunk, settle);
    };
    const onEnd = () => settle(watch.onEnd());
    const onAbort = () => settle(watch.aborted);
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('aborted', onAbort);
  });
}

/**
 * Reads a request body as UTF-8, giving up as soon as it exceeds `maxBytes`, has not arrived
 * within `timeoutMs` (a stalled or trickling body is cut in seconds, not held for minutes), or
 * cannot be covered by the shared `reservation`.
 * @internal
 */
export function readRequestBody(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
  reservation?: BodyReservation,
): Promise<RequestBodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ ok: false, reason: 'too_large' });
  }
  // A declared length is reserved up front, so an admitted body can always complete.
  const prepaid = Number.isFinite(declared) && declared > 0 ? declared : 0;
  if (reservation && prepaid > 0 && !reservation.take(prepaid)) {
    req.resume();
    return Promise.resolve({ ok: false, reason: 'over_budget' });
  }
  // Most bodies arrive in one chunk, decoded as it is; a larger one is decoded chunk by chunk as
  // it arrives (no joined copy of its bytes: a megabyte buffer per request is memory outside the
  // heap, which the collector answers with full collections).
  let first: Buffer | undefined;
  let decoder: StringDecoder | undefined;
  let text = '';
  let size = 0;
  const release = () => {
    first = undefined;
    text = '';
  };
  return watchBody<RequestBodyRead>(req, timeoutMs, {
    onData(chunk, settle) {
      const before = size;
      size += chunk.length;
      if (size > maxBytes) {
        release();
        req.resume();
        settle({ ok: false, reason: 'too_large' });
        return;
      }
      const uncovered = size - Math.max(before, prepaid);
      if (reservation && uncovered > 0 && !reservation.take(uncovered)) {
        req.resume();
        settle({ ok: false, reason: 'over_budget' });
        return;
      }
      if (decoder === undefined && first === undefined) {
        first = chunk;
        return;
      }
      if (decoder === undefined) {
        decoder = new StringDecoder('utf8');
        text = decoder.write(first!);
        first = undefined;
      }
      text += decoder.write(chunk);
    },
    onEnd() {
      if (decoder === undefined) return { ok: true, text: first ? first.toString('utf8') : '' };
      return { ok: true, text: text + decoder.end() };
    },
    onTimeout() {
      req.pause();
      return { ok: false, reason: 'timeout' };
    },
    aborted: { ok: false, reason: 'aborted' },
    release,
  });
}

/**
 * Reads a request body to its end and drops it, within the bounds of {@link readRequestBody}
 * (nothing is kept, so nothing is reserved); resolves whether it ended within them. After it the
 * request is finished, so a body parser further down leaves it alone.
 * @internal
 */
export function discardRequestBody(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve(false);
  }
  let size = 0;
  const ended = watchBody<boolean>(req, timeoutMs, {
    onData(chunk, settle) {
      size += chunk.length;
      if (size > maxBytes) settle(false);
    },
    onEnd: () => true,
    onTimeout: () => false,
    aborted: false,
  });
  req.resume();
  return ended;
}
