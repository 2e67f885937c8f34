import type { ServerContext } from '@modelcontextprotocol/server';
import type { McpSessionRecord } from '../store/session-record';
import type { SessionStream } from '../wire/session-stream';
import type { SessionChannel } from './session-channel';
import type { SessionRequestMessage } from './session-server-context';
import type { HttpExchange } from '../../../extension-api';

/** One request of a 2025-era session, as its method's handler serves it. @internal */
export interface SessionRequest {
  readonly session: McpSessionRecord;
  readonly message: SessionRequestMessage;
  /** The HTTP exchange it came on, passed explicitly to everything that runs operations. */
  readonly exchange: HttpExchange;
  /** Its response: JSON, or SSE once something is sent ahead of the answer. */
  readonly stream: SessionStream;
  /** Aborts when the request is over: the client went away, cancelled it, or closed the session. */
  readonly signal: AbortSignal;
  /** Asks the client over this request's stream. */
  readonly channel: SessionChannel;
  /** The SDK-shaped context of the request; `asTask` declares the tasks extension on it. */
  sdk(asTask?: boolean): ServerContext;
}
