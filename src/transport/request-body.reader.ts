import type { IncomingMessage } from 'node:http';

/** The body of a request, or why it could not be read. */
export type RequestBodyRead =
  { ok: true; text: string } | { ok: false; reason: 'too_large' | 'aborted' | 'timeout' };

/**
 * Reads a request body as UTF-8, giving up as soon as it exceeds `maxBytes` or has not arrived
 * within `timeoutMs` (a stalled or trickling body is cut in seconds, not held for minutes).
 */
export function readRequestBody(
  req: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
): Promise<RequestBodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ ok: false, reason: 'too_large' });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: RequestBodyRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!outcome.ok) chunks.length = 0;
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      req.pause();
      settle({ ok: false, reason: 'timeout' });
    }, timeoutMs);
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        req.resume();
        settle({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle({ ok: true, text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
    req.on('aborted', () => settle({ ok: false, reason: 'aborted' }));
  });
}
