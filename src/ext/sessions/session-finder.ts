import { Injectable } from '@nestjs/common';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { writeJsonRpcHttpError } from '../../kit/json-rpc-http-error';
import { McpSessions } from './mcp-sessions.service';
import type { McpSessionRecord } from './store/session-record';
import { answerCallerRefusal } from './wire/caller-refusal';
import { answeredBusy, SESSION_NOT_FOUND_MESSAGE } from './wire/session-errors';
import { header, paramsOf, type SessionHttpExchange } from './wire/session-http';
import { SESSION_PROTOCOL_VERSIONS } from './wire/session-initialize';
import { ProtectedResource } from '../../extension-api';

/**
 * Finds the session a request names, for the caller the app's global guards authenticate on it: an
 * unknown, expired, deleted or another caller's session is answered 404 exactly alike; a guard's
 * refusal with its HTTP status; a session store that cannot answer now, 503 with `Retry-After`.
 * @internal
 */
@Injectable()
export class SessionFinder {
  constructor(
    private readonly sessions: McpSessions,
    private readonly resource: ProtectedResource,
  ) {}

  /** The session the request names, for this caller; otherwise the refusal is answered. */
  async find(exchange: SessionHttpExchange, method: string): Promise<McpSessionRecord | undefined> {
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
    let session: McpSessionRecord | undefined;
    try {
      session = await this.sessions.open(sessionId, partition);
    } catch (error) {
      if (answeredBusy(error, res, id)) return undefined;
      throw error;
    }
    if (!session)
      writeJsonRpcHttpError(res, 404, McpErrorCode.SessionNotFound, SESSION_NOT_FOUND_MESSAGE, id);
    return session;
  }
}
