import { fleetChannel } from '../../extension-api';

/** A request id of JSON-RPC. @internal */
export type JsonRpcId = string | number;

/**
 * What instances tell each other about 2025-era sessions: an answer to a server-to-client request
 * (its JSON text, numbers as the client wrote them), a cancelled call, a deleted session.
 * @internal
 */
export type SessionEvent =
  | {
      readonly kind: 'answer';
      readonly sessionId: string;
      /** The id the server gave its request. */
      readonly id: JsonRpcId;
      /** The client's JSON-RPC response, as JSON text with exact numbers. */
      readonly response: string;
    }
  | { readonly kind: 'cancel'; readonly sessionId: string; readonly requestId: JsonRpcId }
  | { readonly kind: 'closed'; readonly sessionId: string };

const MAX_SESSION_ID_LENGTH = 64;

function isString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max;
}

function isId(value: unknown): value is JsonRpcId {
  return isString(value, 256) || (typeof value === 'number' && Number.isFinite(value));
}

/** The session event in `value` (another instance's message), or `undefined`. @internal */
export function decodeSessionEvent(value: unknown): SessionEvent | undefined {
  const event = value as Record<string, unknown> | null;
  if (event === null || typeof event !== 'object') return undefined;
  const { sessionId } = event;
  if (!isString(sessionId, MAX_SESSION_ID_LENGTH)) return undefined;
  switch (event.kind) {
    case 'answer':
      return isId(event.id) && typeof event.response === 'string'
        ? { kind: 'answer', sessionId, id: event.id, response: event.response }
        : undefined;
    case 'cancel':
      return isId(event.requestId)
        ? { kind: 'cancel', sessionId, requestId: event.requestId }
        : undefined;
    case 'closed':
      return { kind: 'closed', sessionId };
    default:
      return undefined;
  }
}

/**
 * The sessions' channel of the fleet bus: an answer posted to one instance reaches the one whose
 * call waits for it, a cancel or a deletion ends the calls and streams of the session wherever
 * they run. Bounded by the bus's `maxEventBytes` (an answer is at most one request body).
 * @internal
 */
export const SESSION_CHANNEL = fleetChannel<SessionEvent>('sessions', decodeSessionEvent, {
  publishing: {
    context: 'McpSessions',
    restored: 'Session events reach the other instances again',
    failing: (reason) =>
      `Session events cannot reach the other instances (${reason}): answers and cancellations for sessions served elsewhere are lost meanwhile`,
  },
});
