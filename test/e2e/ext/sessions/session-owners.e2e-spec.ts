import {
  Injectable,
  Module,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import request from 'supertest';
import { McpModule, McpNotifier, McpTool } from '../../../../src/index';
import { SessionGetStreams } from '../../../../src/ext/sessions/streams/session-get-streams';
import { eventually, sleep, until } from '../../../utils/wait';
import { CapturingLogger } from '../../../fixtures/sample-app';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import {
  initializeRaw,
  openSession,
  SESSION_PROTOCOL_VERSION,
  sessionPost,
} from '../../../utils/session-clients';
import { serverForSuite } from '../../../utils/suite-server';
import { guardedRequest } from '../../../fixtures/guarded-request';

/*
 * A 2025-era session belongs to the caller the app's own authentication names — here the setup
 * docs/pipeline.md recommends: a global passport-style guard that verifies `Authorization: Bearer
 * <user>` and puts the user on req.user, with the default partition resolver. Another caller's
 * token with the session's id answers exactly as an unknown session on POST, GET and DELETE;
 * per-caller limits count real users; a guard's 401 is the HTTP status of the request that met it.
 */

const USERS = /^Bearer (user-\d+|alice|bob)$/;

/** A passport-style guard: a known bearer becomes req.user; no or an unknown bearer is 401. */
@Injectable()
class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = guardedRequest(context);
    const match = USERS.exec(req.headers.authorization ?? '');
    if (!match) throw new UnauthorizedException();
    req.user = { id: match[1] };
    return true;
  }
}

/** Refuses everyone but alice with a 401, as a method guard. */
@Injectable()
class AliceOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const user = guardedRequest<{ id?: string }>(context).user;
    if (user?.id !== 'alice') throw new UnauthorizedException();
    return true;
  }
}

@Injectable()
class OwnerTools {
  @McpTool({ name: 'whoami', description: 'Names the caller' })
  whoami(): string {
    return 'someone';
  }

  @UseGuards(AliceOnlyGuard)
  @McpTool({ name: 'alice_only', description: 'Only alice' })
  aliceOnly(): string {
    return 'alice';
  }
}

@Module({
  imports: [McpModule.forRoot({ allowEphemeralKey: true })],
  providers: [OwnerTools, AliceOnlyGuard, { provide: APP_GUARD, useClass: BearerGuard }],
})
class GuardedApp {}

const bearer = (user: string) => ({ Authorization: `Bearer ${user}` });

function bodiless(
  app: INestApplication,
  method: 'get' | 'delete',
  url: URL,
  sessionId: string,
  user: string,
) {
  return request(app.getHttpServer())
    [method](url.pathname)
    .set({
      ...bearer(user),
      Accept: 'text/event-stream',
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': SESSION_PROTOCOL_VERSION,
    })
    .buffer(true)
    .timeout({ response: 5_000 })
    .then((response) => ({ status: response.status, text: response.text }))
    .catch((error: { timeout?: number }) => {
      // A GET stream that opened stays open: that is the owner's stream.
      if (error.timeout) return { status: 200, text: '' };
      throw error;
    });
}

describe.each(ADAPTERS)(
  '2025-era sessions owned by the guard-authenticated caller, %s',
  (adapter) => {
    let server: TestServer;
    const logger = new CapturingLogger();
    beforeAll(async () => {
      server = await startTestServer(adapter, { imports: [GuardedApp] }, '/mcp', { logger });
    });
    afterAll(() => server?.close());

    it("answers another user's token with the session's id exactly as an unknown session, on POST, GET and DELETE; the owner is unaffected", async () => {
      const sessionId = await openSession(server.url, bearer('alice'));
      const unknown = await sessionPost(
        server.url,
        { id: 4, method: 'tools/list' },
        'no-such-session',
        bearer('bob'),
      );
      const stolen = await sessionPost(
        server.url,
        { id: 4, method: 'tools/list' },
        sessionId,
        bearer('bob'),
      );
      expect({ status: stolen.status, text: stolen.text }).toEqual({
        status: unknown.status,
        text: unknown.text,
      });
      expect(stolen.status).toBe(404);
      const unknownGet = await bodiless(server.app, 'get', server.url, 'no-such-session', 'bob');
      expect(await bodiless(server.app, 'get', server.url, sessionId, 'bob')).toEqual(unknownGet);
      expect(unknownGet.status).toBe(404);
      const unknownDelete = await bodiless(
        server.app,
        'delete',
        server.url,
        'no-such-session',
        'bob',
      );
      expect(await bodiless(server.app, 'delete', server.url, sessionId, 'bob')).toEqual(
        unknownDelete,
      );
      const own = await sessionPost(
        server.url,
        { id: 5, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
        sessionId,
        bearer('alice'),
      );
      expect(own.status).toBe(200);
      expect(own.messages[0]?.result).toEqual({ content: [{ type: 'text', text: 'someone' }] });
    });

    it('lets 105 users each open a session: the per-caller limit counts users, not one anonymous partition', async () => {
      const statuses: number[] = [];
      for (let user = 0; user < 105; user++)
        statuses.push((await initializeRaw(server.url, bearer(`user-${user}`))).status);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
    });

    it("answers a guard's 401 with HTTP 401 and a Bearer challenge: at initialize, and for a session's call", async () => {
      const anonymous = await initializeRaw(server.url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.sessionId).toBeUndefined();
      expect(anonymous.messages[0]?.error).toEqual({ code: -32001, message: 'Unauthorized' });
      const sessionId = await openSession(server.url, bearer('bob'));
      const refused = await request(server.origin)
        .post(server.url.pathname)
        .set({
          ...bearer('bob'),
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': sessionId,
          'MCP-Protocol-Version': SESSION_PROTOCOL_VERSION,
        })
        .send({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name: 'alice_only', arguments: {} },
        });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(JSON.parse(refused.text)).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32001, message: 'Unauthorized' },
      });
    });

    it('logs no warning that signed-in users share the anonymous partition', () => {
      expect(logger.lines.filter((line) => line.text.includes('"anonymous" partition'))).toEqual(
        [],
      );
    });
  },
);

@Module({
  imports: [McpModule.forRoot({ allowEphemeralKey: true, sessions: { maxSessionsPerCaller: 2 } })],
  providers: [OwnerTools],
})
class OpenApp {}

describe('anonymous 2025-era clients', () => {
  const server = serverForSuite(() =>
    startTestServer('express', { imports: [OpenApp] }, '/mcp', {}, (app) =>
      (app.getHttpAdapter().getInstance() as { set(key: string, value: unknown): void }).set(
        'trust proxy',
        true,
      ),
    ),
  );

  it('are counted by address, as the rate limiter counts them: one client at its limit does not lock out another', async () => {
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    expect((await initializeRaw(server.url, from('10.0.0.1'))).status).toBe(200);
    expect((await initializeRaw(server.url, from('10.0.0.1'))).status).toBe(200);
    expect((await initializeRaw(server.url, from('10.0.0.1'))).status).toBe(429);
    expect((await initializeRaw(server.url, from('10.0.0.2'))).status).toBe(200);
  });
});

describe('subscriptions/listen inside a 2025-era session', () => {
  const server = serverForSuite(() => startTestServer('express', { imports: [OpenApp] }));

  it('answers -32601 Method not found, as docs/errors.md says', async () => {
    const sessionId = await openSession(server.url);
    const listen = await sessionPost(
      server.url,
      {
        id: 11,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true } },
      },
      sessionId,
    );
    expect(listen.status).toBe(200);
    expect(listen.messages).toEqual([
      { jsonrpc: '2.0', id: 11, error: { code: -32601, message: 'Method not found' } },
    ]);
  });
});

describe("a 2025-era session's GET stream", () => {
  const server = serverForSuite(() => startTestServer('express', { imports: [OpenApp] }));

  /** A GET stream of a fresh session whose client reads (`reads`) or stops reading. */
  async function getStream(reads: boolean): Promise<{ socket: Socket; received: () => number }> {
    const sessionId = await openSession(server.url);
    const socket = connect(Number(server.url.port), '127.0.0.1');
    await once(socket, 'connect');
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    socket.write(
      `GET ${server.url.pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n` +
        `Mcp-Session-Id: ${sessionId}\r\nMCP-Protocol-Version: ${SESSION_PROTOCOL_VERSION}\r\n\r\n`,
    );
    await until(() => bytes > 0, 'the stream to open');
    if (!reads) socket.pause();
    return { socket, received: () => bytes };
  }

  it('is cut when its client stops reading through a burst of changes, while a reading one keeps its stream', async () => {
    const streams = server.app.get(SessionGetStreams, { strict: false });
    const stalled = await getStream(false);
    const reading = await getStream(true);
    expect(streams.size).toBe(2);
    const notifier = server.app.get(McpNotifier);
    // Until the socket buffers are full and the stalled stream's backlog passes 64 KiB (of each
    // burst, what waits for a stream past the fan-out's bound is written once: a hang guard).
    for (let burst = 0; burst < 1_000 && streams.size === 2; burst++) {
      for (let change = 0; change < 2_000; change++) notifier.toolsChanged();
      await new Promise((resolve) => setImmediate(resolve));
      await sleep(20);
    }
    await eventually(() => streams.size, 1, 30_000);
    const before = reading.received();
    notifier.toolsChanged();
    await until(() => reading.received() > before, 'the change on the reading stream');
    expect(reading.socket.destroyed).toBe(false);
    stalled.socket.destroy();
    reading.socket.destroy();
  }, 60_000);
});

describe('what a 2025-era session may hold', () => {
  const server = serverForSuite(() => startTestServer('express', { imports: [OpenApp] }));

  it('is bounded by sessions.maxSessionBytes: declarations at initialize, subscriptions after', async () => {
    const padded = await initializeRaw(
      server.url,
      {},
      { experimental: { pad: 'x'.repeat(9_000) } },
    );
    expect(padded.status).toBe(400);
    expect(padded.messages[0]?.error).toMatchObject({ code: -32602 });
    const sessionId = await openSession(server.url);
    const subscribe = (uri: string) =>
      sessionPost(server.url, { id: 1, method: 'resources/subscribe', params: { uri } }, sessionId);
    const answers: unknown[] = [];
    for (let index = 0; index < 6; index++)
      answers.push((await subscribe(`file:///${index}/${'u'.repeat(2_000)}`)).messages[0]);
    expect(answers.slice(0, 3)).toEqual(
      [0, 1, 2].map(() => ({ jsonrpc: '2.0', id: 1, result: {} })),
    );
    expect(answers.slice(4)).toEqual(
      [4, 5].map(() => ({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: 'Invalid params: the session holds too many subscribed bytes',
          data: { maxSessionBytes: 8_192 },
        },
      })),
    );
  });
});
