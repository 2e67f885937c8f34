import type { IncomingMessage } from 'node:http';
import type { McpSessionRecord } from '../store/session-record';
import { SessionStream } from './session-stream';
import type { LegacyHttpExchange } from '../../../extension-api';

/**
 * A request of the 2025 era as the HTTP layer hands it over: a POST's checked body and its text.
 * @internal
 */
export type SessionHttpExchange = LegacyHttpExchange;

/** A request header's value, when it is given once. @internal */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** A JSON-RPC message's params, when they are an object. @internal */
export function paramsOf(message: unknown): Readonly<Record<string, unknown>> {
  const params = (message as { params?: unknown } | null | undefined)?.params;
  return params !== null && typeof params === 'object' ? (params as Record<string, unknown>) : {};
}

/** Whether the request's `Accept` names every one of `types`. @internal */
export function accepts(req: IncomingMessage, ...types: string[]): boolean {
  const accept = header(req, 'accept') ?? '';
  return types.every((type) => accept.includes(type));
}

/** The response of a session request, as the session's stream of events (or one JSON body). @internal */
export function sessionStreamOf(
  exchange: Pick<SessionHttpExchange, 'response'>,
  session: McpSessionRecord,
  eventPrefix: string | undefined,
  keepAliveMs: number,
): SessionStream {
  return new SessionStream(exchange.response, {
    sessionId: session.sessionId,
    protocolVersion: session.protocolVersion,
    eventPrefix,
    keepAliveMs,
  });
}
