import { Injectable } from '@nestjs/common';
import {
  isJsonContentType,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResponse,
} from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { SessionAnswers } from './calls/session-answers';
import { SessionCallRegistry } from './calls/session-call-registry';
import type { SessionRequestMessage } from './calls/session-server-context';
import { SessionBodiless } from './session-bodiless';
import { SessionCalls } from './session-calls';
import { SessionFinder } from './session-finder';
import { SessionOpener } from './session-opener';
import { accepts, header, type SessionHttpExchange } from './wire/session-http';
import { SESSION_PROTOCOL_VERSIONS } from './wire/session-initialize';

/** @internal */
export type { SessionHttpExchange } from './wire/session-http';

/**
 * The 2025-era side of the endpoint (2025-11-25 and 2025-06-18, streamable HTTP with sessions):
 * `initialize` opens a session and answers its `Mcp-Session-Id` ({@link SessionOpener}); every
 * later request names it and is served only for the caller that opened it ({@link SessionFinder}:
 * another caller, an unknown, expired or deleted session: HTTP 404); requests are served by
 * {@link SessionCalls}; `GET` holds the session's stream of notifications, `DELETE` ends the
 * session ({@link SessionBodiless}); posted answers reach the call that waits for them on whichever
 * instance it runs.
 * @internal
 */
@Injectable()
export class SessionEndpoint {
  constructor(
    private readonly opener: SessionOpener,
    private readonly finder: SessionFinder,
    private readonly calls: SessionCalls,
    private readonly bodiless: SessionBodiless,
    private readonly answers: SessionAnswers,
    private readonly registry: SessionCallRegistry,
  ) {}

  /** The 2025-era revisions `initialize` negotiates. */
  readonly protocolVersions = SESSION_PROTOCOL_VERSIONS;

  async serve(exchange: SessionHttpExchange): Promise<void> {
    const { raw: req, response: res } = exchange;
    if (req.method === 'GET' || req.method === 'DELETE') return this.bodiless.serve(exchange);
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
    if (message?.method === 'initialize' && isJSONRPCRequest(message))
      return this.opener.serve(exchange);
    const session = await this.finder.find(exchange, String(message?.method ?? 'response'));
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
        this.registry.cancel(session.sessionId, cancelled);
      return this.accepted(res);
    }
    if (!isJSONRPCRequest(message))
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.InvalidRequest,
        'Bad Request: not a JSON-RPC message',
      );
    return this.calls.serve(session, message as unknown as SessionRequestMessage, exchange);
  }

  private refuse(exchange: SessionHttpExchange, status: number, text: string): void {
    writeJsonRpcHttpError(exchange.response, status, McpErrorCode.ServerBusy, text);
  }

  private accepted(res: SessionHttpExchange['response']): void {
    res.writeHead(202).end();
  }
}
