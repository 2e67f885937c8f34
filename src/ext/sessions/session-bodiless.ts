import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { MCP_KEEP_ALIVE_MS } from '../../kit/mcp.constants';
import { McpSessions } from './mcp-sessions.service';
import { SessionFinder } from './session-finder';
import { SessionGetStreams } from './streams/session-get-streams';
import { answeredBusy, requestStreamLost } from './wire/session-errors';
import { accepts, header, sessionStreamOf, type SessionHttpExchange } from './wire/session-http';
import { requestIdOfEventId } from './wire/stream-event-id';

/**
 * A session's `GET` (its stream of notifications, one per session; with `Last-Event-ID` of a lost
 * request stream, what became of that request) and `DELETE` (its end).
 * @internal
 */
@Injectable()
export class SessionBodiless {
  constructor(
    @Inject(MCP_KEEP_ALIVE_MS) private readonly keepAliveMs: number,
    private readonly sessions: McpSessions,
    private readonly finder: SessionFinder,
    private readonly getStreams: SessionGetStreams,
  ) {}

  async serve(exchange: SessionHttpExchange): Promise<void> {
    const { raw: req, response: res } = exchange;
    if (header(req, 'mcp-session-id') === undefined) {
      res.setHeader('Allow', 'POST');
      return writeJsonRpcHttpError(res, 405, McpErrorCode.ServerBusy, 'Method not allowed.');
    }
    if (req.method === 'GET' && !accepts(req, 'text/event-stream'))
      return writeJsonRpcHttpError(
        res,
        406,
        McpErrorCode.ServerBusy,
        'Not Acceptable: Client must accept text/event-stream',
      );
    const session = await this.finder.find(exchange, req.method === 'GET' ? 'GET' : 'DELETE');
    if (!session) return;
    if (req.method === 'DELETE') {
      try {
        await this.sessions.close(session);
      } catch (error) {
        if (answeredBusy(error, res, null)) return;
        throw error;
      }
      res.writeHead(200).end();
      return;
    }
    const lost = requestIdOfEventId(header(req, 'last-event-id'));
    if (lost !== undefined) {
      // A request stream cut before its answer: its call ended with the stream (this instance
      // or another, alive or not). Say so, under the request's id, instead of leaving it waiting.
      const error = requestStreamLost();
      const stream = sessionStreamOf(exchange, session, undefined, this.keepAliveMs);
      // A GET is answered as a stream, whatever it carries: a client reads nothing else there.
      stream.start();
      stream.answer({
        jsonrpc: '2.0',
        id: lost,
        error: { code: error.code, message: error.message },
      });
      return;
    }
    const stream = sessionStreamOf(
      exchange,
      session,
      `g.${randomBytes(9).toString('base64url')}`,
      this.keepAliveMs,
    );
    const closed = new Promise((resolve) => res.once('close', resolve));
    if (!this.getStreams.hold(session.sessionId, stream, closed))
      return writeJsonRpcHttpError(
        res,
        409,
        McpErrorCode.ServerBusy,
        'Conflict: Only one SSE stream is allowed per session',
      );
    stream.start();
  }
}
