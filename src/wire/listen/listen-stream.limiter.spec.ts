import type { IncomingMessage } from 'node:http';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import {
  ListenStreamLimiter,
  listenCallerKey,
  type ListenAdmission,
} from './listen-stream.limiter';

const LIMITS = {
  maxStreams: 3,
  maxStreamsPerCaller: 2,
  maxResourceSubscriptions: 2,
  maxUriLength: 10,
};

function release(admission: ListenAdmission): () => void {
  if (!admission.admitted) throw new Error(`refused: ${admission.refusal.message}`);
  return admission.release;
}

function listenMessage(notifications: unknown): unknown {
  return { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications } };
}

/** What `acquire` answers when a limit refuses: its HTTP status, message, option name and value. */
function refused(status: number, message: string, limit: string, max: number) {
  return {
    admitted: false,
    refusal: { status, code: -32600, message, data: { limit, max, retryAfterMs: 1_000 } },
  };
}

describe('ListenStreamLimiter', () => {
  describe('acquire', () => {
    it('counts streams in total and per caller, and frees a caller once it holds none', () => {
      const limiter = new ListenStreamLimiter(LIMITS);
      const a1 = release(limiter.acquire('a'));
      const a2 = release(limiter.acquire('a'));
      const b1 = release(limiter.acquire('b'));
      expect(limiter.openStreams).toBe(3);
      expect(limiter.callers).toBe(2);
      a1();
      a2();
      expect(limiter.openStreams).toBe(1);
      expect(limiter.callers).toBe(1);
      b1();
      expect(limiter.openStreams).toBe(0);
      expect(limiter.callers).toBe(0);
    });

    it('releases a slot only once however often release is called', () => {
      const limiter = new ListenStreamLimiter(LIMITS);
      const first = release(limiter.acquire('a'));
      release(limiter.acquire('a'));
      first();
      first();
      first();
      expect(limiter.openStreams).toBe(1);
      expect(limiter.acquire('a').admitted).toBe(true);
      expect(limiter.acquire('a').admitted).toBe(false);
    });

    it('refuses a caller at maxStreamsPerCaller with 429', () => {
      const limiter = new ListenStreamLimiter(LIMITS);
      limiter.acquire('a');
      limiter.acquire('a');
      expect(limiter.acquire('a')).toEqual(
        refused(429, 'Too many listen streams for this caller', 'listen.maxStreamsPerCaller', 2),
      );
      expect(limiter.openStreams).toBe(2);
    });

    it('refuses anyone at maxStreams with 503, and admits again once a slot is released', () => {
      const limiter = new ListenStreamLimiter(LIMITS);
      const first = release(limiter.acquire('a'));
      limiter.acquire('b');
      limiter.acquire('c');
      expect(limiter.acquire('d')).toEqual(
        refused(503, 'Too many listen streams', 'listen.maxStreams', 3),
      );
      expect(limiter.callers).toBe(3);
      first();
      expect(limiter.acquire('d').admitted).toBe(true);
    });
  });

  it('stops 100 callers short of maxStreams, so a quiet caller still gets a stream', () => {
    const limiter = new ListenStreamLimiter({
      maxStreams: 1_000,
      maxStreamsPerCaller: 10,
      maxResourceSubscriptions: 1,
      maxUriLength: 1,
    });
    let refusedShare = 0;
    for (let round = 0; round < 10; round++)
      for (let caller = 0; caller < 100; caller++) {
        const admission = limiter.acquire(`flood-${caller}`);
        if (!admission.admitted) {
          expect(admission.refusal).toMatchObject({ status: 429, data: { retryAfterMs: 1_000 } });
          refusedShare++;
        }
      }
    // k = 100 × 10 / (1,000 × 0.25) = 4: the flood settles at 800 streams, 200 left for others.
    expect(limiter.openStreams).toBe(800);
    expect(refusedShare).toBe(200);
    expect(limiter.acquire('quiet').admitted).toBe(true);
  });

  describe('filterRefusal', () => {
    const limiter = new ListenStreamLimiter(LIMITS);

    it('accepts up to maxResourceSubscriptions URIs of up to maxUriLength characters', () => {
      expect(
        limiter.filterRefusal(listenMessage({ resourceSubscriptions: ['a://1', 'a://567890'] })),
      ).toBeUndefined();
      expect(limiter.filterRefusal(listenMessage({ toolsListChanged: true }))).toBeUndefined();
    });

    it('refuses more URIs with 400 -32602 naming the limit', () => {
      expect(
        limiter.filterRefusal(listenMessage({ resourceSubscriptions: ['a', 'b', 'c'] })),
      ).toEqual({
        status: 400,
        code: -32602,
        message: 'Invalid params: too many resource subscriptions',
        data: { limit: 'listen.maxResourceSubscriptions', max: 2 },
      });
    });

    it('counts entries of any type against maxResourceSubscriptions', () => {
      expect(
        limiter.filterRefusal(listenMessage({ resourceSubscriptions: [1, null, {}] }))?.data.limit,
      ).toBe('listen.maxResourceSubscriptions');
    });

    it('refuses a longer URI with 400 -32602 naming the limit', () => {
      expect(
        limiter.filterRefusal(listenMessage({ resourceSubscriptions: ['a://5678901'] })),
      ).toEqual({
        status: 400,
        code: -32602,
        message: 'Invalid params: resource URI too long',
        data: { limit: 'listen.maxUriLength', max: 10 },
      });
    });

    it.each([
      ['no params', { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen' }],
      ['no notifications', { params: {} }],
      ['notifications not an object', { params: { notifications: 'all' } }],
      [
        'resourceSubscriptions not an array',
        { params: { notifications: { resourceSubscriptions: 'x' } } },
      ],
      ['a null message', null],
    ])('leaves %s to the SDK', (_, message) => {
      expect(limiter.filterRefusal(message)).toBeUndefined();
    });
  });
});

describe('listenCallerKey', () => {
  function raw(headers: Record<string, string>, remoteAddress?: string): IncomingMessage {
    return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
  }
  const request = (ip?: string) => ({ headers: {}, ip }) as McpHttpRequest;

  it('is a digest of the Authorization header, never the credential itself', () => {
    const key = listenCallerKey(request('10.0.0.1'), raw({ authorization: 'Bearer secret-token' }));
    expect(key).toMatch(/^authorization:[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain('secret');
    expect(
      listenCallerKey(request('10.0.0.2'), raw({ authorization: 'Bearer secret-token' })),
    ).toBe(key);
    expect(listenCallerKey(request('10.0.0.1'), raw({ authorization: 'Bearer other' }))).not.toBe(
      key,
    );
  });

  it('is the client address without Authorization: the framework ip, else the socket address', () => {
    expect(listenCallerKey(request('203.0.113.7'), raw({}, '10.0.0.1'))).toBe(
      'address:203.0.113.7',
    );
    expect(listenCallerKey(request(), raw({ authorization: '' }, '10.0.0.1'))).toBe(
      'address:10.0.0.1',
    );
    expect(listenCallerKey(request(), raw({}))).toBe('address:unknown');
  });
});
