import type { IncomingMessage } from 'node:http';
import type { BodyReservation } from './body-byte-budget';

/** The body of a request, or why it could not be read. @internal */
export type RequestBodyRead =
  | { ok: true; text: string }
  | { ok: false; reason: 'too_large' | 'aborted' | 'timeout' | 'over_budget' };

function ignoreLateError(): void {}

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
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: RequestBodyRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A listen stream keeps its request for hours: drop what the listeners hold (chunks, text),
      // keeping one that holds nothing so a late 'error' is never an uncaught exception.
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('aborted', onAbort);
      req.on('error', ignoreLateError);
      chunks.length = 0;
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      req.pause();
      settle({ ok: false, reason: 'timeout' });
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      if (settled) return;
      const before = size;
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
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
      chunks.push(chunk);
    };
    const onEnd = () => {
      // Most bodies arrive in one chunk: decoded as it is, without a copy.
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      settle({ ok: true, text: body.toString('utf8') });
    };
    const onAbort = () => settle({ ok: false, reason: 'aborted' });
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('aborted', onAbort);
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
  return new Promise((resolve) => {
    let size = 0;
    let settled = false;
    const settle = (ended: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('aborted', onAbort);
      req.on('error', ignoreLateError);
      resolve(ended);
    };
    const timer = setTimeout(() => settle(false), timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle(false);
    };
    const onEnd = () => settle(true);
    const onAbort = () => settle(false);
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('aborted', onAbort);
    req.resume();
  });
}
