import { Injectable, Module } from '@nestjs/common';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import {
  McpContext,
  McpModule,
  McpNotifier,
  McpTool,
  type McpOperationContext,
} from '../../../../src/index';
import { SessionGetStreams } from '../../../../src/ext/sessions/streams/session-get-streams';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import { openSession, SESSION_PROTOCOL_VERSION, sessionPost } from '../../../utils/session-clients';
import { until } from '../../../utils/wait';
import { heapAfterGc, MIB } from '../../../utils/heap';

/*
 * Issue 33, item 4: every stream a 2025-era session holds is bounded. A client that stops reading
 * its GET stream is cut once that stream's backlog passes the bound, whatever storm of changes the
 * app announces, and what it held is given back; a client that stops reading the SSE answer to
 * its POST is cut the same way, and its call is aborted as if it had gone away. The session
 * survives both: the client may call again and reopen its GET stream. Heap is measured after full
 * collections against a baseline taken in the same test.
 */

const nextMacrotask = () => new Promise((wake) => setImmediate(wake));

/** Progress messages a chatty call sends at most, each about 16 KB: 64 MB if nothing stops it. */
const MAX_REPORTS = 4_000;
const REPORT_PAD = 'p'.repeat(16_000);

@Injectable()
class ChattyTools {
  sent = 0;
  ended = false;
  abortedAt: number | undefined;

  @McpTool({ name: 'chatty', description: 'Reports progress until done or its client is gone' })
  async chatty(@McpContext() ctx: McpOperationContext): Promise<string> {
    this.sent = 0;
    this.ended = false;
    this.abortedAt = undefined;
    for (; this.sent < MAX_REPORTS && !ctx.signal.aborted; this.sent++) {
      await ctx.progress.report(this.sent, MAX_REPORTS, REPORT_PAD);
      // A call does some work between reports: the event loop turns.
      await nextMacrotask();
    }
    if (ctx.signal.aborted) this.abortedAt = this.sent;
    this.ended = true;
    return `sent ${this.sent}`;
  }

  @McpTool({ name: 'ping', description: 'Answers pong' })
  ping(): string {
    return 'pong';
  }
}

@Module({
  imports: [
    McpModule.forRoot({ allowEphemeralKey: true, sessions: { maxSessionsPerCaller: 100 } }),
  ],
  providers: [ChattyTools],
})
class BacklogApp {}

/** An open raw connection and the bytes it has received. */
interface RawStream {
  readonly socket: Socket;
  readonly received: () => number;
  /** Settles when the response's last chunk arrived (SSE answers keep the connection open). */
  readonly answered: Promise<void>;
  readonly closed: Promise<void>;
}

/**
 * Sends `head` (and `body`) on a connection of its own; resolves once the answer begins — or at
 * once, the connection not read from, when `stalled` (a client that reads nothing of the answer).
 */
async function rawExchange(
  server: TestServer,
  head: string,
  body = '',
  stalled = false,
): Promise<RawStream> {
  const socket = connect(Number(server.url.port), '127.0.0.1');
  await once(socket, 'connect');
  let bytes = 0;
  let tail = '';
  let answer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    tail = (tail + chunk.toString('latin1')).slice(-16);
    if (tail.endsWith('\r\n0\r\n\r\n')) answer();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head + body);
  if (stalled) socket.pause();
  else await until(() => bytes > 0, 'the answer to begin');
  return { socket, received: () => bytes, answered, closed };
}

function sessionHead(server: TestServer, method: string, sessionId: string, extra = ''): string {
  return (
    `${method} ${server.url.pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Mcp-Session-Id: ${sessionId}\r\nMCP-Protocol-Version: ${SESSION_PROTOCOL_VERSION}\r\n${extra}\r\n`
  );
}

/** A session's GET stream on a raw socket. */
function getStream(server: TestServer, sessionId: string): Promise<RawStream> {
  return rawExchange(
    server,
    sessionHead(server, 'GET', sessionId, 'Accept: text/event-stream\r\n'),
  );
}

describe.each(ADAPTERS)("a 2025-era session's streams over %s", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [BacklogApp] });
  });
  afterAll(() => server?.close());

  it('cuts GET streams whose clients stopped reading at the bound in a storm of list changes, gives the heap back, and keeps the sessions', async () => {
    const held = server.app.get(SessionGetStreams, { strict: false });
    const notifier = server.app.get(McpNotifier);
    const stalledSessions: string[] = [];
    const stalled: RawStream[] = [];
    for (let index = 0; index < 10; index++) {
      const sessionId = await openSession(server.url);
      stalledSessions.push(sessionId);
      const stream = await getStream(server, sessionId);
      stream.socket.pause();
      stalled.push(stream);
    }
    const reader = await getStream(server, await openSession(server.url));
    expect(held.size).toBe(11);
    const baseline = await heapAfterGc();

    // Bursts of every kind of list change, the loop turning between them; until only the reader
    // is left (a hang guard: far more changes than the socket buffers hold).
    let bursts = 0;
    for (; bursts < 60_000 && held.size > 1; bursts++) {
      for (let change = 0; change < 10; change++) {
        notifier.toolsChanged();
        notifier.promptsChanged();
        notifier.resourcesChanged();
      }
      await nextMacrotask();
    }
    expect(held.size).toBe(1);
    await Promise.all(stalled.map((stream) => stream.socket.resume() && stream.closed));
    expect((await heapAfterGc()) - baseline).toBeLessThan(4 * MIB);

    // The reader kept its stream and gets the next change.
    const before = reader.received();
    notifier.toolsChanged();
    await until(() => reader.received() > before, 'the change on the reading stream');
    expect(reader.socket.destroyed).toBe(false);
    reader.socket.destroy();

    // Each cut stream's session is intact: it answers calls and may open its GET stream again.
    for (const sessionId of stalledSessions) {
      const ping = await sessionPost(
        server.url,
        { id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } },
        sessionId,
      );
      expect(ping.status).toBe(200);
      expect(ping.messages[0]?.result).toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
      const reopened = await getStream(server, sessionId);
      reopened.socket.destroy();
    }
  }, 120_000);

  /** A `tools/call` of `chatty` on a raw socket of its own, in `sessionId`. */
  function chattyCall(sessionId: string, stalled = false): Promise<RawStream> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'p' } },
    });
    return rawExchange(
      server,
      sessionHead(
        server,
        'POST',
        sessionId,
        'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n`,
      ),
      body,
      stalled,
    );
  }

  it('cuts the SSE answer to a POST whose client stopped reading, aborts the call, and keeps the session', async () => {
    const tools = server.app.get(ChattyTools);
    const sessionId = await openSession(server.url);
    const call = await chattyCall(sessionId, true);
    await until(() => tools.ended, { what: 'the call to end', timeoutMs: 60_000 });
    expect(tools.abortedAt).toBeDefined();
    // What the socket buffers took, and at most the bound beyond: a small part of what the call
    // would have sent (MAX_REPORTS × 16 KB) had nothing cut it.
    expect(tools.abortedAt).toBeLessThan(MAX_REPORTS / 4);
    call.socket.resume();
    await call.closed;

    const ping = await sessionPost(
      server.url,
      { id: 8, method: 'tools/call', params: { name: 'ping', arguments: {} } },
      sessionId,
    );
    expect(ping.messages[0]?.result).toMatchObject({ content: [{ type: 'text', text: 'pong' }] });
  }, 120_000);

  it('streams every message to a POST whose client reads, whatever their size in all', async () => {
    const tools = server.app.get(ChattyTools);
    const call = await chattyCall(await openSession(server.url));
    await call.answered;
    call.socket.destroy();
    expect(tools.abortedAt).toBeUndefined();
    expect(tools.sent).toBe(MAX_REPORTS);
    expect(call.received()).toBeGreaterThan(MAX_REPORTS * REPORT_PAD.length);
  }, 120_000);
});
