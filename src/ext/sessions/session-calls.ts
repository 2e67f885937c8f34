import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { MCP_KEEP_ALIVE_MS } from '../../kit/mcp.constants';
import { SessionAnswers } from './calls/session-answers';
import { SessionCallRegistry } from './calls/session-call-registry';
import { streamChannel } from './calls/session-channel';
import type { SessionRequest } from './calls/session-request';
import { sessionServerContext, type SessionRequestMessage } from './calls/session-server-context';
import { SessionMethods } from './session-methods';
import type { McpSessionRecord } from './store/session-record';
import { refusalStatusOf } from './wire/caller-refusal';
import { sessionStreamOf, type SessionHttpExchange } from './wire/session-http';
import { postStreamEventPrefix } from './wire/stream-event-id';
import { McpServedRequests, OPERATION_METHODS, ProtectedResource } from '../../extension-api';

/**
 * One request of a session: served by {@link SessionMethods} on the request's own response — one
 * JSON body, or an event stream once the call sends something before its answer (a
 * server-to-client request, a notification) — cancellable, under its span.
 * @internal
 */
@Injectable()
export class SessionCalls {
  private readonly logger = new Logger('McpSessions');

  constructor(
    @Inject(MCP_KEEP_ALIVE_MS) private readonly keepAliveMs: number,
    private readonly methods: SessionMethods,
    private readonly answers: SessionAnswers,
    private readonly calls: SessionCallRegistry,
    private readonly served: McpServedRequests,
    private readonly resource: ProtectedResource,
  ) {}

  async serve(
    session: McpSessionRecord,
    message: SessionRequestMessage,
    exchange: SessionHttpExchange,
  ): Promise<void> {
    const stream = sessionStreamOf(
      exchange,
      session,
      postStreamEventPrefix(message.id),
      this.keepAliveMs,
    );
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
}
