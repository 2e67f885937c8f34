import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { McpModule, McpNotifier } from '../../../src/index';
import { ListenStreams } from '../../../src/wire/listen/listen-streams';
import { SdkHandlers } from '../../../src/wire/http/sdk-handlers';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rpcBody, rpcHeaders } from '../../utils/mcp';
import { serveListenStream } from '../../utils/sdk-listen-bridge';
import { eventually } from '../../utils/wait';

/** The raw bytes of one HTTP exchange, as they arrived on the socket. */
interface RawExchange {
  readonly text: () => string;
  readonly ended: Promise<void>;
  close(): void;
}

/** Sends `body` as a raw HTTP/1.1 POST to `port` and records every byte of the answer. */
function rawPost(port: number, path: string, body: string): RawExchange {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const headers = {
    Host: `127.0.0.1:${port}`,
    ...rpcHeaders('subscriptions/listen'),
    'Content-Length': String(Buffer.byteLength(body)),
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${body}`);
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    text: () => Buffer.concat(chunks).toString('utf8'),
    ended,
    close: () => socket.destroy(),
  };
}

/**
 * A chunked body's bytes without its framing: where HTTP cuts a stream into chunks depends on when
 * each write reaches the socket (two frames written in one turn may share a chunk), not on what was
 * written. A last chunk still arriving is left out.
 */
function dechunked(body: string): string {
  // Chunk sizes count bytes, and a string id may hold characters of several.
  const bytes = Buffer.from(body, 'utf8');
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0 || lineEnd + 2 + size > bytes.length) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * The answer with what the hosting framework adds for every route (its date, Express's
 * `X-Powered-By`) taken out, and a chunked body without its chunk framing: what is left is what
 * the listen path wrote.
 */
function listenBytesOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = (split === -1 ? raw : raw.slice(0, split))
    .split('\r\n')
    .filter((line) => !/^(date|x-powered-by): /i.test(line))
    .join('\r\n');
  if (split === -1) return head;
  const body = raw.slice(split + 4);
  return `${head}\r\n\r\n${/^transfer-encoding: chunked$/im.test(head) ? dechunked(body) : body}`;
}

function framesIn(raw: string): number {
  return raw.split('event: message').length - 1;
}

/**
 * The module's own listen streams against the SDK's (the module's previous way, kept as the
 * reference in test/utils/sdk-listen-bridge.ts): the same request to both, the same changes
 * announced to both, byte for byte the same answer.
 */
describe.each(ALL_ADAPTERS)('listen streams match the SDK byte for byte over %s', (adapter) => {
  let server: TestServer;
  let reference: Server;
  let referencePort: number;
  let modulePort: number;
  const open: RawExchange[] = [];

  async function start(): Promise<void> {
    // Keep-alive comments off: they come on a timer, not on a change.
    server = await startTestServer(adapter, {
      imports: [McpModule.forRoot({ http: { keepAliveMs: 0 } })],
    });
    const handlers = server.app.get(SdkHandlers);
    reference = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        void serveListenStream(handlers.listen, req, res, body);
      });
    });
    // Node announces its server's idle timeout (`Keep-Alive: timeout=…`): the same on both.
    reference.keepAliveTimeout = (server.app.getHttpServer() as Server).keepAliveTimeout;
    await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve));
    referencePort = (reference.address() as AddressInfo).port;
    modulePort = Number(server.url.port);
  }

  async function stop(): Promise<void> {
    for (const exchange of open.splice(0)) exchange.close();
    await server?.close().catch(() => undefined);
    reference?.closeAllConnections();
    await new Promise((resolve) => reference?.close(resolve));
  }

  beforeAll(start);
  afterAll(stop);

  /** Opens the same listen request on both; resolves once both have `frames` SSE messages. */
  async function both(
    params: Record<string, unknown>,
    id: number | string,
  ): Promise<{ sdk: RawExchange; ours: RawExchange }> {
    const body = rpcBody('subscriptions/listen', params, id);
    const sdk = rawPost(referencePort, '/listen', body);
    const ours = rawPost(modulePort, server.url.pathname, body);
    open.push(sdk, ours);
    await eventually(() => Math.min(framesIn(sdk.text()), framesIn(ours.text())) > 0, true);
    return { sdk, ours };
  }

  /** Announces the same changes to both, the SDK's through its bus, ours through the notifier. */
  function announce(changes: readonly ({ uri: string } | 'tools' | 'prompts' | 'resources')[]) {
    const sdk = server.app.get(SdkHandlers).main.notify;
    const notifier = server.app.get(McpNotifier);
    for (const change of changes) {
      if (change === 'tools') {
        sdk.toolsChanged();
        notifier.toolsChanged();
      } else if (change === 'prompts') {
        sdk.promptsChanged();
        notifier.promptsChanged();
      } else if (change === 'resources') {
        sdk.resourcesChanged();
        notifier.resourcesChanged();
      } else {
        sdk.resourceUpdated(change.uri);
        notifier.resourceUpdated(change.uri);
      }
    }
  }

  async function expectSameBytes(
    pair: { sdk: RawExchange; ours: RawExchange },
    frames: number,
  ): Promise<string> {
    await eventually(() => framesIn(pair.ours.text()) >= frames, true);
    await eventually(() => framesIn(pair.sdk.text()) >= frames, true);
    const ours = listenBytesOf(pair.ours.text());
    expect(ours).toBe(listenBytesOf(pair.sdk.text()));
    expect(framesIn(ours)).toBe(frames);
    return ours;
  }

  const CHANGES = [
    'tools',
    'prompts',
    { uri: 'catalog://readme' },
    'resources',
    { uri: 'catalog://other' },
    'tools',
    { uri: 'catalog://b' },
  ] as const;

  it.each([
    ['tool changes', { toolsListChanged: true }, 1 + 2],
    [
      'prompt and resource-list changes',
      { promptsListChanged: true, resourcesListChanged: true },
      3,
    ],
    [
      'followed URIs only',
      { resourceSubscriptions: ['catalog://readme', 'catalog://b', 'catalog://none'] },
      3,
    ],
    [
      'everything, some fields false',
      {
        toolsListChanged: true,
        promptsListChanged: false,
        resourcesListChanged: true,
        resourceSubscriptions: ['catalog://other'],
      },
      5,
    ],
  ])(
    'acknowledges %s and delivers the same changes in the same order',
    async (_, filter, frames) => {
      const pair = await both({ notifications: filter }, 7);
      announce(CHANGES);
      const bytes = await expectSameBytes(pair, frames);
      expect(bytes).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(bytes).toContain('notifications/subscriptions/acknowledged');
    },
  );

  it('stamps a string id as the SDK does', async () => {
    const pair = await both({ notifications: { toolsListChanged: true } }, 'listen-"é"');
    announce(['tools']);
    await expectSameBytes(pair, 2);
  });

  it.each([
    ['nothing to follow', { notifications: {} }],
    [
      'only false fields and no URIs',
      { notifications: { toolsListChanged: false, resourceSubscriptions: [] } },
    ],
    ['no filter at all', {}],
    ['a filter that is not one', { notifications: { toolsListChanged: 'yes' } }],
  ])('answers %s with the same complete exchange', async (_, params) => {
    const body = rpcBody('subscriptions/listen', params, 9);
    const sdk = rawPost(referencePort, '/listen', body);
    const ours = rawPost(modulePort, server.url.pathname, body);
    open.push(sdk, ours);
    await eventually(() => /0\r\n\r\n$/.test(ours.text()) && /0\r\n\r\n$/.test(sdk.text()), true);
    expect(listenBytesOf(ours.text())).toBe(listenBytesOf(sdk.text()));
  });

  it('ends both with the same final result when the application shuts down', async () => {
    const pair = await both({ notifications: { resourceSubscriptions: ['catalog://readme'] } }, 11);
    announce([{ uri: 'catalog://readme' }]);
    await expectSameBytes(pair, 2);
    await eventually(() => server.app.get(ListenStreams).size > 0, true);
    await server.close();
    await eventually(() => /0\r\n\r\n$/.test(pair.ours.text()), true);
    await eventually(() => /0\r\n\r\n$/.test(pair.sdk.text()), true);
    expect(listenBytesOf(pair.ours.text())).toBe(listenBytesOf(pair.sdk.text()));
    expect(pair.ours.text()).toContain('"resultType":"complete"');
    await stop();
    await start();
  });
});
