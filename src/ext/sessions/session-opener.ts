import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { MCP_KEEP_ALIVE_MS } from '../../kit/mcp.constants';
import { McpSessions } from './mcp-sessions.service';
import { SessionMethods } from './session-methods';
import { SessionCapacityError } from './store/session-capacity.error';
import type { McpSessionRecord } from './store/session-record';
import { answerCallerRefusal } from './wire/caller-refusal';
import { answeredBusy } from './wire/session-errors';
import { paramsOf, sessionStreamOf, type SessionHttpExchange } from './wire/session-http';
import { initializeResult, sessionOpening } from './wire/session-initialize';
import {
  McpServedRequests,
  McpServerCapabilities,
  ProtectedResource,
  SERVER_OPTIONS,
  observedRequestOf,
  type ObservedRequest,
  type RequestEnd,
  type ServerOptions,
} from '../../extension-api';
import { MIN_RETRY_AFTER_MS } from '../../kit/fair-share';

/**
 * `initialize`: authenticates the caller (the app's global guards), opens a session it owns within
 * the session limits, and answers what is served and the session's id.
 * @internal
 */
@Injectable()
export class SessionOpener {
  private readonly logger = new Logger('McpSessions');

  constructor(
    @Inject(SERVER_OPTIONS) private readonly server: ServerOptions,
    @Inject(MCP_KEEP_ALIVE_MS) private readonly keepAliveMs: number,
    private readonly sessions: McpSessions,
    private readonly methods: SessionMethods,
    private readonly served: McpServedRequests,
    private readonly resource: ProtectedResource,
    private readonly capabilities: McpServerCapabilities,
  ) {}

  /** Opens a session, under the request's span when something observes. */
  async serve(exchange: SessionHttpExchange): Promise<void> {
    if (!this.served.observing()) {
      await this.open(exchange);
      return;
    }
    await this.served.observed(
      this.initializeObserved(exchange),
      () => this.open(exchange),
      (ended) => ended,
    );
  }

  /** Opens a session and answers it; resolves with the session opened or the error answered. */
  async open(exchange: SessionHttpExchange): Promise<RequestEnd> {
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
      if (answeredBusy(error, res, message.id))
        return { errorType: String(McpErrorCode.ServerBusy) };
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
        // A slot frees when a session closes or idles out: a hint to retry, not a promise.
        {
          ...(caller
            ? { maxSessionsPerCaller: error.maxSessions }
            : { maxSessions: error.maxSessions }),
          retryAfterMs: MIN_RETRY_AFTER_MS,
        },
      );
      return { errorType: String(McpErrorCode.ServerBusy) };
    }
    const result = initializeResult(
      session.protocolVersion,
      this.server,
      this.methods.servesTasks(),
      this.capabilities.legacyExtensions(),
    );
    sessionStreamOf(exchange, session, undefined, this.keepAliveMs).answer({
      jsonrpc: '2.0',
      id: message.id,
      result,
    });
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
}
