import { ProtocolError } from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { McpErrorCode } from '../../../kit/errors/mcp-error-codes';
import { clip } from '../../../kit/clip';
import { writeJsonRpcHttpError } from '../../../kit/json-rpc-http-error';

/** The one answer to a session that is not this caller's to use (HTTP 404). @internal */
export const SESSION_NOT_FOUND_MESSAGE = 'Session not found';

/** A client that let `timeoutMs` pass without answering request `key`. @internal */
export function inputRequestTimedOut(key: string, timeoutMs: number): ProtocolError {
  return new ProtocolError(
    McpErrorCode.InputRequestTimedOut,
    `The client did not answer input request "${clip(key)}" within ${timeoutMs} ms`,
    { key: clip(key), timeoutMs },
  );
}

/** A call still asking for input after `maxInputRounds`. @internal */
export function inputRoundsExceeded(maxInputRounds: number): ProtocolError {
  return new ProtocolError(
    McpErrorCode.InputRoundsExceeded,
    `The call still required input after ${maxInputRounds} rounds`,
    { maxInputRounds },
  );
}

/** A client that answered request `key` with an error (or with something that is no answer). @internal */
export function inputRequestFailed(key: string, code: unknown): ProtocolError {
  return new ProtocolError(
    McpErrorCode.InputRequestFailed,
    `The client could not answer input request "${clip(key)}"`,
    typeof code === 'number' ? { key: clip(key), code } : { key: clip(key) },
  );
}

/** A session with `maxPendingRequests` requests already waiting for answers. @internal */
export function tooManyPendingRequests(maxPendingRequests: number): ProtocolError {
  return new ProtocolError(
    McpErrorCode.ServerBusy,
    'Server busy: too many requests of this session are waiting for answers',
    { maxPendingRequests },
  );
}

/** What a client resuming a lost request stream learns of its request. @internal */
export function requestStreamLost(): ProtocolError {
  return new ProtocolError(
    McpErrorCode.RequestStreamLost,
    'The stream of this request was lost before its answer; the request did not complete',
  );
}

/**
 * Answers a session request that could not be served now (`-32000 Server busy`, e.g. its store
 * unavailable) before anything of it ran: HTTP 503 with `Retry-After`, as `initialize` past
 * `sessions.maxSessions` is. Answers whether `error` was such a refusal.
 * @internal
 */
export function answeredBusy(error: unknown, res: ServerResponse, id: unknown): boolean {
  if (!(error instanceof ProtocolError) || error.code !== McpErrorCode.ServerBusy) return false;
  writeJsonRpcHttpError(res, 503, error.code, error.message, id, error.data);
  return true;
}
