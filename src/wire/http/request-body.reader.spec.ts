import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { discardRequestBody, readRequestBody } from './request-body.reader';

function request(headers: Record<string, string> = {}): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers }) as unknown as PassThrough & IncomingMessage;
}

describe('readRequestBody', () => {
  it('reads the body, then holds nothing on the request but a listener for late errors', async () => {
    const req = request();
    const before = ['data', 'end', 'error', 'aborted'].map((event) => req.listenerCount(event));
    const read = readRequestBody(req, 1000, 10_000);
    req.end('{"jsonrpc":"2.0"}');
    expect(await read).toEqual({ ok: true, text: '{"jsonrpc":"2.0"}' });
    expect(req.listenerCount('data')).toBe(before[0]);
    expect(req.listenerCount('end')).toBe(before[1]);
    expect(req.listenerCount('aborted')).toBe(before[3]);
    expect(req.listeners('error')).toHaveLength(before[2] + 1);
    expect(() => req.emit('error', new Error('reset after the body'))).not.toThrow();
  });

  it('decodes a body of many chunks as one text, characters split between chunks included', async () => {
    const text = '{"text":"€ 😀 é — ' + 'x'.repeat(100) + '"}';
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [1, 2, 3, 7, bytes.length - 1]) {
      const req = request();
      const read = readRequestBody(req, 10_000, 10_000);
      for (let at = 0; at < bytes.length; at += size) req.write(bytes.subarray(at, at + size));
      req.end();
      expect([size, await read]).toEqual([size, { ok: true, text }]);
    }
    // A character cut off at the end reads as U+FFFD, as when the whole body is decoded at once.
    const req = request();
    const read = readRequestBody(req, 10_000, 10_000);
    req.write(Buffer.from('{"a":"'));
    req.end(Buffer.from('€', 'utf8').subarray(0, 2));
    expect(await read).toEqual({
      ok: true,
      text: Buffer.from([
        ...Buffer.from('{"a":"'),
        ...Buffer.from('€', 'utf8').subarray(0, 2),
      ]).toString('utf8'),
    });
  });

  it('gives up over maxBytes and survives an error afterwards', async () => {
    const req = request();
    const read = readRequestBody(req, 4, 10_000);
    req.write('12345');
    expect(await read).toEqual({ ok: false, reason: 'too_large' });
    expect(req.listenerCount('data')).toBe(0);
    expect(() => req.emit('error', new Error('aborted'))).not.toThrow();
  });
});

describe('discardRequestBody', () => {
  it('reads the body to its end, keeps none of it, and leaves the request finished', async () => {
    const req = request();
    const dropped = discardRequestBody(req, 1000, 10_000);
    req.end('{"jsonrpc":"2.0"}');
    expect(await dropped).toBe(true);
    expect(req.readableEnded).toBe(true);
    expect(req.listenerCount('data')).toBe(0);
    expect(() => req.emit('error', new Error('reset after the body'))).not.toThrow();
  });

  it('gives up over maxBytes, declared or sent', async () => {
    expect(await discardRequestBody(request({ 'content-length': '5' }), 4, 10_000)).toBe(false);
    const req = request();
    const dropped = discardRequestBody(req, 4, 10_000);
    req.write('12345');
    expect(await dropped).toBe(false);
  });

  it('gives up when the body has not ended within timeoutMs', async () => {
    const req = request();
    const dropped = discardRequestBody(req, 1000, 20);
    req.write('{"jsonrpc"');
    expect(await dropped).toBe(false);
  });
});
