import { McpModule, McpNotifier } from '../../../src/index';
import { ListenStreams } from '../../../src/wire/listen/listen-streams';
import { CallGate, NotificationsModule } from './notifications.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { freshId, rawToolCall, resultText, rpcBody, rpcHeaders } from '../../utils/mcp';
import { SseReader, parseSseMessages, type JsonRpcFrame, type OpenStream } from '../../utils/sse';
import { openListenStream } from '../../utils/listen-stream';
import { eventually } from '../../utils/wait';

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** The JSON-RPC messages of a complete response, whether plain JSON or an SSE stream. */
async function messagesOf(response: Response): Promise<JsonRpcFrame[]> {
  const text = await response.text();
  return response.headers.get('content-type')?.startsWith('text/event-stream')
    ? parseSseMessages(text)
    : [JSON.parse(text) as JsonRpcFrame];
}

/** An open `subscriptions/listen` stream. */
interface Listener {
  readonly id: number;
  readonly response: OpenStream;
  readonly frames: SseReader;
}

describe.each(ADAPTERS)('MCP notifications over %s', (adapter) => {
  let server: TestServer;
  const open: Listener[] = [];

  beforeAll(async () => {
    server = await startTestServer(adapter, {
      imports: [McpModule.forRoot({}), NotificationsModule],
    });
  });

  afterEach(() => {
    for (const listener of open.splice(0)) listener.response.close();
  });

  afterAll(() => server?.close());

  /** Opens a `subscriptions/listen` stream on `target` asking for `notifications`. */
  async function listen(
    notifications: Record<string, unknown>,
    target: TestServer = server,
  ): Promise<Listener> {
    const id = freshId();
    const response = await openListenStream(target.url, notifications, { id });
    const listener = { id, response, frames: new SseReader(response.body) };
    open.push(listener);
    return listener;
  }

  /** `tools/call` of `chatty` over plain HTTP, with `extraMeta` in the envelope. */
  function callChatty(id: number, extraMeta: Record<string, unknown> = {}): Promise<Response> {
    return fetch(server.url, {
      method: 'POST',
      headers: rpcHeaders('tools/call', 'chatty'),
      body: rpcBody('tools/call', { name: 'chatty', arguments: {} }, id, {}, extraMeta),
    });
  }

  describe('logging', () => {
    it('streams log lines at or above the requested level before the result', async () => {
      const id = freshId();
      const response = await callChatty(id, { [LOG_LEVEL]: 'info' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const messages = await messagesOf(response);
      expect(messages).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', logger: 'chatty', data: { line: 'info summary' } },
        },
        {
          jsonrpc: '2.0',
          id,
          result: expect.objectContaining({
            resultType: 'complete',
            content: [{ type: 'text', text: 'talked' }],
          }),
        },
      ]);
    });

    it('streams every line, in order, when the client asks for debug', async () => {
      const messages = await messagesOf(await callChatty(freshId(), { [LOG_LEVEL]: 'debug' }));
      expect(messages.filter((message) => message.method === 'notifications/message')).toEqual([
        expect.objectContaining({ params: expect.objectContaining({ level: 'debug' }) }),
        expect.objectContaining({ params: expect.objectContaining({ level: 'info' }) }),
      ]);
      expect(messages.at(-1)?.result).toMatchObject({ content: [{ text: 'talked' }] });
    });

    it('sends no log line when the requested level is above every line', async () => {
      const messages = await messagesOf(await callChatty(freshId(), { [LOG_LEVEL]: 'warning' }));
      expect(messages.map((message) => message.method)).not.toContain('notifications/message');
      expect(messages.at(-1)?.result).toMatchObject({ content: [{ text: 'talked' }] });
    });

    it('sends no log line when the request names no log level', async () => {
      const id = freshId();
      const response = await callChatty(id);
      expect(response.status).toBe(200);
      const messages = await messagesOf(response);
      expect(messages).toEqual([
        {
          jsonrpc: '2.0',
          id,
          result: expect.objectContaining({ content: [{ type: 'text', text: 'talked' }] }),
        },
      ]);
    });
  });

  describe('subscriptions/listen', () => {
    it('acknowledges the filter with the subscription id, then streams tool-list changes a tool announces', async () => {
      const listener = await listen({ toolsListChanged: true });
      expect(listener.response.status).toBe(200);
      expect(listener.response.headers['content-type']).toMatch(/^text\/event-stream/);
      const ack = await listener.frames.next();
      expect(ack).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { toolsListChanged: true } },
      });
      const subscriptionId = ack.params?._meta?.[SUBSCRIPTION_ID];
      expect(subscriptionId).toEqual(expect.anything());

      const call = await rawToolCall(server.url, 'enable_beta', {});
      expect(resultText(call)).toBe('beta enabled');
      expect(await listener.frames.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: subscriptionId } },
      });
    });

    it('delivers each change only to the streams whose filter asked for it', async () => {
      const tools = await listen({ toolsListChanged: true });
      const prompts = await listen({ promptsListChanged: true });
      const toolsAck = await tools.frames.next();
      const promptsAck = await prompts.frames.next();
      expect(promptsAck.params).toMatchObject({ notifications: { promptsListChanged: true } });
      const toolsId = toolsAck.params?._meta?.[SUBSCRIPTION_ID];
      const promptsId = promptsAck.params?._meta?.[SUBSCRIPTION_ID];
      expect(promptsId).not.toEqual(toolsId);

      const notifier = server.app.get(McpNotifier);
      notifier.toolsChanged();
      notifier.promptsChanged();
      notifier.toolsChanged();
      // Each stream is in publish order: a leaked change would arrive before the expected one.
      expect(await prompts.frames.next()).toMatchObject({
        method: 'notifications/prompts/list_changed',
        params: { _meta: { [SUBSCRIPTION_ID]: promptsId } },
      });
      const toolFrames = [await tools.frames.next(), await tools.frames.next()];
      expect(toolFrames).toEqual([
        expect.objectContaining({
          method: 'notifications/tools/list_changed',
          params: { _meta: { [SUBSCRIPTION_ID]: toolsId } },
        }),
        expect.objectContaining({ method: 'notifications/tools/list_changed' }),
      ]);
    });

    it('streams resource-list changes to a stream that asked for them', async () => {
      const resources = await listen({ resourcesListChanged: true });
      await resources.frames.next();
      server.app.get(McpNotifier).resourcesChanged();
      expect(await resources.frames.next()).toMatchObject({
        method: 'notifications/resources/list_changed',
      });
    });

    it('streams updates of the resource URIs a stream follows, and only those', async () => {
      const follower = await listen({ resourceSubscriptions: ['catalog://readme'] });
      const ack = await follower.frames.next();
      expect(ack.params).toMatchObject({
        notifications: { resourceSubscriptions: ['catalog://readme'] },
      });
      const notifier = server.app.get(McpNotifier);
      notifier.resourceUpdated('catalog://other');
      notifier.resourceUpdated('catalog://readme');
      // In publish order: an update of the other URI would arrive first.
      expect(await follower.frames.next()).toMatchObject({
        method: 'notifications/resources/updated',
        params: { uri: 'catalog://readme' },
      });
    });

    it('forgets a stream once the client goes away', async () => {
      const streams = server.app.get(ListenStreams);
      await eventually(() => streams.size, 0); // streams of earlier tests were dropped
      const listener = await listen({ toolsListChanged: true });
      await listener.frames.next();
      expect(streams.size).toBe(1);
      listener.response.close();
      await eventually(() => streams.size, 0);
      server.app.get(McpNotifier).toolsChanged(); // nobody left to write to
    });

    it('ends open streams with a final result when the application closes, letting calls in flight finish', async () => {
      const own = await startTestServer(adapter, {
        imports: [McpModule.forRoot({}), NotificationsModule],
      });
      const gate = own.app.get(CallGate);
      let listener: Listener | undefined;
      let closing: Promise<void> | undefined;
      try {
        listener = await listen({ toolsListChanged: true }, own);
        const ack = await listener.frames.next();
        const id = freshId();
        const call = fetch(own.url, {
          method: 'POST',
          // Without it the client keeps the connection, and the closing server waits for it.
          headers: { ...rpcHeaders('tools/call', 'held'), Connection: 'close' },
          body: rpcBody('tools/call', { name: 'held', arguments: {} }, id),
        });
        await gate.entered;
        closing = own.close();
        expect(await listener.frames.rest()).toEqual([
          {
            jsonrpc: '2.0',
            id: listener.id,
            result: expect.objectContaining({
              resultType: 'complete',
              _meta: expect.objectContaining({
                [SUBSCRIPTION_ID]: ack.params?._meta?.[SUBSCRIPTION_ID],
              }),
            }),
          },
        ]);
        gate.release();
        const response = await call;
        expect(response.status).toBe(200);
        expect(await messagesOf(response)).toEqual([
          {
            jsonrpc: '2.0',
            id,
            result: expect.objectContaining({ content: [{ type: 'text', text: 'finished' }] }),
          },
        ]);
        await closing;
      } finally {
        gate.release();
        listener?.response.close();
        await (closing ?? own.close());
      }
    });
  });
});
