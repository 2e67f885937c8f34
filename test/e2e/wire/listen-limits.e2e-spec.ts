import { connect } from 'node:net';
import { McpModule, McpNotifier, type McpModuleOptions } from '../../../src/index';
import { ListenEndpoint } from '../../../src/wire/listen/listen-endpoint';
import { ListenStreams } from '../../../src/wire/listen/listen-streams';
import { NotificationsModule } from './notifications.fixtures';
import {
  ALL_ADAPTERS,
  startTestServer,
  type AdapterName,
  type TestServer,
} from '../../utils/bootstrap';
import { freshId, rawRound, rawToolCall, resultText, rpcBody, rpcHeaders } from '../../utils/mcp';
import { expectErrorResponse } from '../../utils/expect-rpc';
import { SseReader, type JsonRpcFrame, type OpenStream } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { eventually } from '../../utils/wait';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** An open `subscriptions/listen` response, with its frames. */
interface Listener {
  readonly id: number;
  readonly response: OpenStream;
  readonly frames: SseReader;
}

describe.each(ALL_ADAPTERS)('subscriptions/listen limits over %s', (adapter: AdapterName) => {
  const LIMITS = {
    maxStreams: 4,
    maxStreamsPerCaller: 2,
    maxResourceSubscriptions: 3,
    maxUriLength: 64,
  };
  let server: TestServer;
  const open: Listener[] = [];

  async function start(listen: McpModuleOptions['listen']): Promise<TestServer> {
    return startTestServer(adapter, {
      imports: [McpModule.forRoot({ listen }), NotificationsModule],
    });
  }

  beforeAll(async () => {
    server = await start(LIMITS);
  });

  afterEach(async () => {
    for (const listener of open.splice(0)) listener.response.close();
    if (server) await eventually(() => limiterOf(server).openStreams, 0);
  });

  afterAll(() => server?.close());

  function limiterOf(target: TestServer) {
    return target.app.get(ListenEndpoint).limiter;
  }

  /** Opens a listen stream (or gets its refusal) as the caller `authorization` names. */
  async function listen(
    notifications: Record<string, unknown>,
    authorization?: string,
    target: TestServer = server,
  ): Promise<Listener> {
    const id = freshId();
    const response = await openListenStream(target.url, notifications, {
      id,
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
    let frames: SseReader | undefined;
    // The body is read either as SSE frames or, when refused, as one JSON response.
    const listener = {
      id,
      response,
      get frames() {
        return (frames ??= new SseReader(response.body));
      },
    };
    open.push(listener);
    return listener;
  }

  /** Opens a stream and waits for its acknowledgement. */
  async function acknowledged(
    notifications: Record<string, unknown>,
    authorization?: string,
    target: TestServer = server,
  ): Promise<Listener & { ack: JsonRpcFrame }> {
    const listener = await listen(notifications, authorization, target);
    expect(listener.response.status).toBe(200);
    const ack = await listener.frames.next();
    expect(ack.method).toBe('notifications/subscriptions/acknowledged');
    return { ...listener, ack };
  }

  /** The JSON-RPC error body of a refused listen request. */
  async function refusal(listener: Listener): Promise<JsonRpcFrame> {
    expect(listener.response.headers['content-type']).toMatch(/^application\/json/);
    return (await new Response(listener.response.body).json()) as JsonRpcFrame;
  }

  describe('resource subscriptions per stream', () => {
    it('accepts exactly maxResourceSubscriptions URIs of maxUriLength characters', async () => {
      const longest = `catalog://${'u'.repeat(LIMITS.maxUriLength - 'catalog://'.length)}`;
      const uris = ['catalog://a', 'catalog://b', longest];
      const { ack } = await acknowledged({ resourceSubscriptions: uris });
      expect(ack.params).toMatchObject({ notifications: { resourceSubscriptions: uris } });
    });

    it('refuses one URI more with -32602 naming the limit, before any stream opens', async () => {
      const id = freshId();
      const response = await rawRound(
        server.url,
        'subscriptions/listen',
        { notifications: { resourceSubscriptions: ['a://1', 'a://2', 'a://3', 'a://4'] } },
        { id },
      );
      expectErrorResponse(response, 400, id, {
        code: -32602,
        message: 'Invalid params: too many resource subscriptions',
        data: { limit: 'listen.maxResourceSubscriptions', max: LIMITS.maxResourceSubscriptions },
      });
      expect(limiterOf(server).openStreams).toBe(0);
    });

    it('refuses a URI one character longer than maxUriLength with -32602 naming the limit', async () => {
      const id = freshId();
      const tooLong = `catalog://${'u'.repeat(LIMITS.maxUriLength + 1 - 'catalog://'.length)}`;
      const response = await rawRound(
        server.url,
        'subscriptions/listen',
        { notifications: { toolsListChanged: true, resourceSubscriptions: ['a://1', tooLong] } },
        { id },
      );
      expectErrorResponse(response, 400, id, {
        code: -32602,
        message: 'Invalid params: resource URI too long',
        data: { limit: 'listen.maxUriLength', max: LIMITS.maxUriLength },
      });
    });

    it('leaves other malformed filters to the SDK', async () => {
      const response = await rawRound(server.url, 'subscriptions/listen', {
        notifications: { resourceSubscriptions: [1, 2] },
      });
      expect(response.body.error).toMatchObject({ code: -32602 });
      expect(response.body.error?.data).toBeUndefined();
      expect(limiterOf(server).openStreams).toBe(0);
    });
  });

  describe('streams', () => {
    it('refuses a caller over maxStreamsPerCaller with HTTP 429, other callers still get streams', async () => {
      await acknowledged({ toolsListChanged: true }, 'Bearer alice');
      await acknowledged({ toolsListChanged: true }, 'Bearer alice');
      const third = await listen({ toolsListChanged: true }, 'Bearer alice');
      expect(third.response.status).toBe(429);
      expect(await refusal(third)).toEqual({
        jsonrpc: '2.0',
        id: third.id,
        error: {
          code: -32600,
          message: 'Too many listen streams for this caller',
          data: {
            limit: 'listen.maxStreamsPerCaller',
            max: LIMITS.maxStreamsPerCaller,
            retryAfterMs: 1_000,
          },
        },
      });
      await acknowledged({ toolsListChanged: true }, 'Bearer bob');
      expect(limiterOf(server).openStreams).toBe(3);
      expect(limiterOf(server).callers).toBe(2);
    });

    it('counts callers without Authorization by their address', async () => {
      await acknowledged({ toolsListChanged: true });
      await acknowledged({ toolsListChanged: true });
      const third = await listen({ toolsListChanged: true });
      expect(third.response.status).toBe(429);
      expect((await refusal(third)).error?.data).toEqual({
        limit: 'listen.maxStreamsPerCaller',
        max: LIMITS.maxStreamsPerCaller,
        retryAfterMs: 1_000,
      });
      await acknowledged({ toolsListChanged: true }, 'Bearer carol');
    });

    it('refuses stream maxStreams + 1 with HTTP 503, and accepts new streams once they closed', async () => {
      const held = [];
      for (let i = 0; i < LIMITS.maxStreams; i++) {
        held.push(await acknowledged({ toolsListChanged: true }, `Bearer caller-${i}`));
      }
      const extra = await listen({ toolsListChanged: true }, 'Bearer someone-else');
      expect(extra.response.status).toBe(503);
      expect(extra.response.headers['retry-after']).toBe('1');
      expect(await refusal(extra)).toEqual({
        jsonrpc: '2.0',
        id: extra.id,
        error: {
          code: -32600,
          message: 'Too many listen streams',
          data: { limit: 'listen.maxStreams', max: LIMITS.maxStreams, retryAfterMs: 1_000 },
        },
      });
      // The refused request never reached the SDK: only the held streams are open.
      const streams = server.app.get(ListenStreams);
      expect(streams.size).toBe(LIMITS.maxStreams);

      for (const listener of held) listener.response.close();
      await eventually(() => limiterOf(server).openStreams, 0);
      expect(limiterOf(server).callers).toBe(0);
      const again = [];
      for (let i = 0; i < LIMITS.maxStreams; i++) {
        again.push(await acknowledged({ toolsListChanged: true }, `Bearer caller-${i}`));
      }
      expect(limiterOf(server).openStreams).toBe(LIMITS.maxStreams);
    });

    it('keeps delivering list changes and resource updates to streams within the limits', async () => {
      const tools = await acknowledged({ toolsListChanged: true });
      const resources = await acknowledged(
        { resourceSubscriptions: ['catalog://readme'] },
        'Bearer dave',
      );
      expect(resultText(await rawToolCall(server.url, 'enable_beta', {}))).toBe('beta enabled');
      expect(await tools.frames.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: tools.ack.params?._meta?.[SUBSCRIPTION_ID] } },
      });
      server.app.get(McpNotifier).resourceUpdated('catalog://readme');
      expect(await resources.frames.next()).toMatchObject({
        method: 'notifications/resources/updated',
        params: { uri: 'catalog://readme' },
      });
    });
  });

  describe('a client that stops reading', () => {
    it('is closed once its backlog passes the bound, its slot released, while readers keep receiving', async () => {
      const reader = await acknowledged({ toolsListChanged: true }, 'Bearer reader');
      // A long id makes every frame ~100 KB, so the kernel's socket buffers fill after a few dozen.
      const body = rpcBody(
        'subscriptions/listen',
        { notifications: { toolsListChanged: true } },
        'x'.repeat(100_000),
      );
      const stalled = connect(Number(server.url.port), '127.0.0.1');
      const head = Object.entries({
        Host: server.url.host,
        ...rpcHeaders('subscriptions/listen'),
        Authorization: 'Bearer stalled',
        'Content-Length': String(Buffer.byteLength(body)),
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      stalled.write(`POST ${server.url.pathname} HTTP/1.1\r\n${head}\r\n${body}`);
      stalled.pause();
      const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
      const streams = server.app.get(ListenStreams);
      await eventually(() => streams.size, 2);
      const notifier = server.app.get(McpNotifier);
      for (let i = 0; i < 400 && streams.size === 2; i++) {
        notifier.toolsChanged();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await eventually(() => streams.size, 1);
      await eventually(() => limiterOf(server).openStreams, 1);
      stalled.resume(); // drain what was sent; the server has closed the connection
      await closed;
      expect(await reader.frames.next()).toMatchObject({
        method: 'notifications/tools/list_changed',
      });
    });
  });

  describe('slots are released exactly once', () => {
    it('whether the client leaves, the server ends the stream, the SDK refuses it or a limit does', async () => {
      const limiter = limiterOf(server);
      const streams = server.app.get(ListenStreams);
      for (let round = 0; round < 25; round++) {
        // The client goes away.
        const left = await acknowledged({ toolsListChanged: true }, `Bearer round-${round}`);
        left.response.close();
        // Nothing to deliver: the SDK acknowledges and ends the stream itself.
        const ended = await listen({}, `Bearer round-${round}`);
        expect(await ended.frames.rest()).toEqual([
          expect.objectContaining({ method: 'notifications/subscriptions/acknowledged' }),
          expect.objectContaining({ id: ended.id, result: expect.any(Object) }),
        ]);
        // The SDK answers an error instead of a stream.
        const invalid = await rawRound(server.url, 'subscriptions/listen', {});
        expect(invalid.body.error?.code).toBe(-32602);
        // A limit refuses it before the SDK.
        const refused = await rawRound(server.url, 'subscriptions/listen', {
          notifications: { resourceSubscriptions: ['a://1', 'a://2', 'a://3', 'a://4'] },
        });
        expect(refused.status).toBe(400);
      }
      open.splice(0);
      await eventually(() => limiter.openStreams, 0);
      expect(limiter.callers).toBe(0);
      await eventually(() => streams.size, 0);
      // Every slot is free again: the process-wide limit is reachable once more.
      for (let i = 0; i < LIMITS.maxStreams; i++) {
        await acknowledged({ toolsListChanged: true }, `Bearer after-${i}`);
      }
      expect(limiter.openStreams).toBe(LIMITS.maxStreams);
    });

    it('when the application shuts down with streams open', async () => {
      const own = await start({ maxStreams: 3 });
      const limiter = limiterOf(own);
      try {
        const listeners = [];
        for (let i = 0; i < 3; i++) {
          listeners.push(await acknowledged({ toolsListChanged: true }, `Bearer s-${i}`, own));
        }
        expect(limiter.openStreams).toBe(3);
        const closing = own.close();
        for (const listener of listeners) {
          expect(await listener.frames.rest()).toEqual([
            expect.objectContaining({ id: listener.id, result: expect.any(Object) }),
          ]);
        }
        await closing;
        expect(limiter.openStreams).toBe(0);
        expect(limiter.callers).toBe(0);
      } finally {
        open.splice(0).forEach((listener) => listener.response.close());
        await own.close().catch(() => undefined);
      }
    });
  });

  it('applies the defaults when no listen option is given', async () => {
    const own = await start(undefined);
    try {
      const response = await rawRound(own.url, 'subscriptions/listen', {
        notifications: { resourceSubscriptions: Array.from({ length: 101 }, (_, i) => `a://${i}`) },
      });
      expect(response.status).toBe(400);
      expect(response.body.error?.data).toEqual({
        limit: 'listen.maxResourceSubscriptions',
        max: 100,
      });
      const held = [];
      for (let i = 0; i < 10; i++)
        held.push(await acknowledged({ toolsListChanged: true }, 'x', own));
      const eleventh = await listen({ toolsListChanged: true }, 'x', own);
      expect(eleventh.response.status).toBe(429);
    } finally {
      open.splice(0).forEach((listener) => listener.response.close());
      await own.close();
    }
  });
});
