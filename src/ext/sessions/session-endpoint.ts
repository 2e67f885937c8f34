import type { LegacyHttpExchange } from '../../transport/endpoint-routes';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  isJsonContentType,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResponse,
  ProtocolError,
} from '@modelcontextprotocol/server';
import type { IncomingMessage } from 'node:http';
import { McpErrorCode } from '../../errors/mcp-error-codes';
import type { ObservedRequest, RequestEnd } from '../../observability/observed-request';
import { SessionCapacityError } from './store/session-capacity.error';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { McpServedRequests } from '../../protocol/served-requests';
import { OPERATION_METHODS, observedRequestOf } from '../../protocol/served-request';
import { SERVER_OPTIONS, type ServerOptions } from '../../protocol/server.options';
import { writeJsonRpcHttpError } from '../../util/json-rpc-http-error';
import { MCP_KEEP_ALIVE_MS } from '../../util/mcp.constants';
import { SessionAnswers } from './calls/session-answers';
import { SessionCallRegistry } from './calls/session-call-registry';
import { streamChannel } from './calls/session-channel';
import type { SessionRequest } from './calls/session-request';
import { sessionServerContext, type SessionRequestMessage } from './calls/session-server-context';
import { McpSessions } from './mcp-sessions.service';
import { SessionMethods } from './session-methods';
import type { McpSessionRecord } from './store/session-record';
import { SessionGetStreams } from './streams/session-get-streams';
import { requestStreamLost, SESSION_NOT_FOUND_MESSAGE } from './wire/session-errors';
import {
  initializeResult,
  SESSION_PROTOCOL_VERSIONS,
  sessionOpening,
} from './wire/session-initialize';
import { SessionStream } from './wire/session-stream';
import { answerCallerRefusal, refusalStatusOf } from './wire/caller-refusal';
import { ProtectedResource } from '../../auth/protected-resource';
import { postStreamEventPrefix, requestIdOfEventId } from './wire/stream-event-id';
import { randomBytes } from 'node:crypto';

/** A request of the 2025 era as the HTTP layer hands it over: a POST's checked body and its text. */
export type SessionHttpExchange = LegacyHttpExchange;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function paramsOf(message: unknown): Readonly<Record<string, unknown>> {
  const params = (message as { params?: unknown } | null | undefined)?.params;
  return params !== null && typeof params === 'object' ? (params as Record<string, unknown>) : {};
}

function accepts(req: IncomingMessage, ...types: string[]): boolean {
  const accept = header(req, 'accept') ?? '';
  return types.every((type) => accept.includes(type));
}

/**
 * The 2025-era side of the endpoint (2025-11-25 and 2025-06-18, streamable HTTP with sessions):
 * `initialize` opens a session and answers its `Mcp-Session-Id`; every later request names it
 * and is served only for the caller that opened it (another caller, an unknown, expired or
 * deleted session: HTTP 404); `GET` holds the session's stream of notifications, `DELETE` ends
 * the session; posted answers reach the call that waits for them on whichever instance it runs.
 * @internal
 */
@Injectable()
export class SessionEndpoint {
  private readonly logger = new Logger('McpSessions');

  constructor(
    @Inject(SERVER_OPTIONS) private readonly server: ServerOptions,
    @Inject(MCP_KEEP_ALIVE_MS) private readonly keepAliveMs: number,
    private readonly sessions: McpSessions,
    private readonly methods: SessionMethods,
    private readonly answers: SessionAnswers,
    private readonly calls: SessionCallRegistry,
    private readonly getStreams: SessionGetStreams,
    private readonly served: McpServedRequests,
    private readonly resource: ProtectedResource,
  ) {}

  async serve(exchange: SessionHttpExchange): Promise<void> {
    const { raw: req, response: res } = exchange;
    if (req.method === 'GET' || req.method === 'DELETE') return this.bodiless(exchange);
    if (req.method !== 'POST')
      return writeJsonRpcHttpError(res, 405, McpErrorCode.ServerBusy, 'Method not allowed.');
    if (!accepts(req, 'application/json', 'text/event-stream'))
      return this.refuse(
        exchange,
        406,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    if (!isJsonContentType(header(req, 'content-type') ?? null))
      return this.refuse(
        exchange,
        415,
        'Unsupported Media Type: Content-Type must be application/json',
      );
    const message = exchange.message as { id?: unknown; method?: unknown } | null;
    if (Array.isArray(message))
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.InvalidRequest,
        'Bad Request: JSON-RPC batches are not supported',
      );
    if (message?.method === 'initialize' && isJSONRPCRequest(message)) {
      if (this.served.observing())
        await this.served.observed(
          this.initializeObserved(exchange),
          () => this.initialize(exchange),
          (ended) => ended,
        );
      else await this.initialize(exchange);
      return;
    }
    const session = await this.session(exchange, String(message?.method ?? 'response'));
    if (!session) return;
    if (isJSONRPCResponse(message)) {
      // An answer without an id answers nothing the server asked.
      if (message.id !== undefined)
        this.answers.deliver(
          session.sessionId,
          message.id,
          exchange.text ?? JSON.stringify(message),
        );
      return this.accepted(res);
    }
    if (isJSONRPCNotification(message)) {
      const cancelled = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (
        message.method === 'notifications/cancelled' &&
        (typeof cancelled === 'string' || typeof cancelled === 'number')
      )
        this.calls.cancel(session.sessionId, cancelled);
      return this.accepted(res);
    }
    if (!isJSONRPCRequest(message))
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.InvalidRequest,
        'Bad Request: not a JSON-RPC message',
      );
    return this.request(session, message as unknown as SessionRequestMessage, exchange);
  }

  /** Opens a session and answers it; resolves with the session opened or the error answered. */
  private async initialize(exchange: SessionHttpExchange): Promise<RequestEnd> {
    const res = exchange.response;
    const message = exchange.message as { id: string | number };
    const opening = sessionOpening(exchange.message, this.sessions.maxSessionBytes);
    if (!opening) {
      writeJsonRpcHttpError(res, 400, McpErrorCode.InvalidParams, 'Invalid params', message.id);
      return { errorType: String(McpErrorCode.InvalidParams) };
    }
    let partition: string;
    try {
      partition = await this.sessions.partitionOf(exchange, 'initialize', paramsOf(message));
    } catch (error) {
      if (!answerCallerRefusal(error, this.resource, exchange.raw, res, message.id)) throw error;
      return { errorType: String((error as ProtocolError).code) };
    }
    let session: McpSessionRecord;
    try {
      session = await this.sessions.create(opening, partition);
    } catch (error) {
      if (!(error instanceof SessionCapacityError)) throw error;
      this.logger.warn(`initialize refused: ${error.message}`);
      const caller = error.scope === 'caller';
      writeJsonRpcHttpError(
        res,
        caller ? 429 : 503,
        McpErrorCode.ServerBusy,
        caller
          ? 'Server busy: too many sessions for this caller'
          : 'Server busy: too many sessions',
        message.id,
        caller ? { maxSessionsPerCaller: error.maxSessions } : { maxSessions: error.maxSessions },
      );
      return { errorType: String(McpErrorCode.ServerBusy) };
    }
    const result = initializeResult(
      session.protocolVersion,
      this.server,
      this.methods.servesTasks(),
    );
    this.streamOf(exchange, session, undefined).answer({ jsonrpc: '2.0', id: message.id, result });
    return { sessionId: session.sessionId };
  }

  /** The span of an `initialize`: its session does not exist yet, its version is the one asked. */
  private initializeObserved(exchange: SessionHttpExchange): ObservedRequest {
    const message = exchange.message as { id: string | number; params?: unknown };
    const asked = (message.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    return {
      ...observedRequestOf('initialize', undefined, exchange),
      requestId: message.id,
      protocolVersion: typeof asked === 'string' ? asked.slice(0, 32) : undefined,
      meta: (message.params as { _meta?: unknown } | undefined)?._meta,
    };
  }

  /** The session the request names, for this caller; otherwise the refusal is answered. */
  private async session(
    exchange: SessionHttpExchange,
    method: string,
  ): Promise<McpSessionRecord | undefined> {
    const { raw: req, response: res } = exchange;
    const id = (exchange.message as { id?: unknown } | undefined)?.id;
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined) {
      writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.ServerBusy,
        'Bad Request: Mcp-Session-Id header is required',
        id,
      );
      return undefined;
    }
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !SESSION_PROTOCOL_VERSIONS.includes(version)) {
      writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.ServerBusy,
        `Bad Request: Unsupported protocol version: ${version.slice(0, 32)} (supported versions: ${SESSION_PROTOCOL_VERSIONS.join(', ')})`,
        id,
      );
      return undefined;
    }
    let partition: string;
    try {
      partition = await this.sessions.partitionOf(exchange, method, paramsOf(exchange.message));
    } catch (error) {
      if (answerCallerRefusal(error, this.resource, req, res, id)) return undefined;
      throw error;
    }
    const session = await this.sessions.open(sessionId, partition);
    if (!session)
      writeJsonRpcHttpError(res, 404, McpErrorCode.SessionNotFound, SESSION_NOT_FOUND_MESSAGE, id);
    return session;
  }

  private async request(
    session: McpSessionRecord,
    message: SessionRequestMessage,
    exchange: SessionHttpExchange,
  ): Promise<void> {
    const stream = this.streamOf(exchange, session, postStreamEventPrefix(message.id));
    const controller = new AbortController();
    stream.signal.addEventListener('abort', () => controller.abort(), { once: true });
    const untrack = this.calls.track(session.sessionId, message.id, controller);
    const notify = async (notification: { method: string; params?: unknown }) => {
      stream.send({ jsonrpc: '2.0', ...notification });
    };
    const request: SessionRequest = {
      session,
      message,
      exchange,
      stream,
      signal: controller.signal,
      channel: streamChannel(this.answers, session.sessionId, stream, controller.signal),
      sdk: (asTask = false) =>
        sessionServerContext(session, message, controller.signal, notify, asTask),
    };
    try {
      // The operations' rounds have the runner's spans; every other method has one of its own.
      const result = await (OPERATION_METHODS.has(message.method)
        ? this.methods.serve(request)
        : this.served.served(message.method, request.sdk(), exchange, () =>
            this.methods.serve(request),
          ));
      stream.answer({ jsonrpc: '2.0', id: message.id, result });
    } catch (error) {
      // Nothing sent yet (the guards refuse before the method runs): the refusal is the status.
      const refusal = refusalStatusOf(error, this.resource, exchange.raw);
      stream.answer(
        { jsonrpc: '2.0', id: message.id, error: this.wireError(error, message.method) },
        refusal?.status,
        refusal?.headers,
      );
    } finally {
      untrack();
    }
  }

  private async bodiless(exchange: SessionHttpExchange): Promise<void> {
    const { raw: req, response: res } = exchange;
    if (header(req, 'mcp-session-id') === undefined) {
      res.setHeader('Allow', 'POST');
      return writeJsonRpcHttpError(res, 405, McpErrorCode.ServerBusy, 'Method not allowed.');
    }
    if (req.method === 'GET' && !accepts(req, 'text/event-stream'))
      return this.refuse(exchange, 406, 'Not Acceptable: Client must accept text/event-stream');
    const session = await this.session(exchange, req.method === 'GET' ? 'GET' : 'DELETE');
    if (!session) return;
    if (req.method === 'DELETE') {
      await this.sessions.close(session);
      res.writeHead(200).end();
      return;
    }
    const lost = requestIdOfEventId(header(req, 'last-event-id'));
    if (lost !== undefined) {
      // A request stream cut before its answer: its call ended with the stream (this instance
      // or another, alive or not). Say so, under the request's id, instead of leaving it waiting.
      const error = requestStreamLost();
      const stream = this.streamOf(exchange, session, undefined);
      // A GET is answered as a stream, whatever it carries: a client reads nothing else there.
      stream.start();
      stream.answer({
        jsonrpc: '2.0',
        id: lost,
        error: { code: error.code, message: error.message },
      });
      return;
    }
    const stream = this.streamOf(exchange, session, `g.${randomBytes(9).toString('base64url')}`);
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

  private streamOf(
    exchange: HttpExchange,
    session: McpSessionRecord,
    eventPrefix: string | undefined,
  ): SessionStream {
    return new SessionStream(exchange.response, {
      sessionId: session.sessionId,
      protocolVersion: session.protocolVersion,
      eventPrefix,
      keepAliveMs: this.keepAliveMs,
    });
  }

  private wireError(
    error: unknown,
    method: string,
  ): { code: number; message: string; data?: unknown } {
    if (error instanceof ProtocolError)
      return error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data };
    this.logger.error(
      `MCP ${method} failed on a 2025-era session`,
      error instanceof Error ? error.stack : String(error),
    );
    return { code: McpErrorCode.InternalError, message: 'Internal error' };
  }

  private refuse(exchange: SessionHttpExchange, status: number, text: string): void {
    writeJsonRpcHttpError(exchange.response, status, McpErrorCode.ServerBusy, text);
  }

  private accepted(res: SessionHttpExchange['response']): void {
    res.writeHead(202).end();
  }
}
