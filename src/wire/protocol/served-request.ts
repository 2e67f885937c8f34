import type { ServerContext } from '@modelcontextprotocol/server';
import type { ObservedRequest } from '../../observability/observed-request';
import type { CallHttp } from '../../pipeline/operation-call';
import { MCP_META_KEYS } from '../../kit/mcp.constants';

/**
 * The methods whose request the {@link OperationRunner} observes itself (one span per round, named
 * after the operation): every other method gets its span from `McpDispatcher.served`.
 * @internal
 */
export const OPERATION_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

/**
 * What the span of a request that runs no operation is made from, out of its SDK-shaped context.
 * @internal
 */
export function observedRequestOf(
  method: string,
  sdk: ServerContext | undefined,
  http: CallHttp,
): ObservedRequest {
  const request = sdk?.mcpReq;
  const envelope = request?.envelope as Record<string, unknown> | undefined;
  const version = envelope?.[MCP_META_KEYS.protocolVersion];
  const raw = http.raw as { socket?: { remoteAddress?: string } } | undefined;
  return {
    method,
    requestId: request?.id,
    protocolVersion: typeof version === 'string' ? version : undefined,
    // Only a session's context carries one (sessions/calls/session-server-context.ts).
    sessionId: (sdk as { sessionId?: string } | undefined)?.sessionId,
    meta: request?._meta,
    headers: http.request.headers,
    clientAddress: http.request.ip ?? raw?.socket?.remoteAddress,
  };
}

/**
 * What the span of a request is made from, out of its JSON-RPC message alone (a listen request
 * has no SDK context): its id, its `_meta` and the protocol version its envelope names.
 * @internal
 */
export function observedMessageOf(
  method: string,
  message: unknown,
  http: CallHttp,
): ObservedRequest {
  const { id, params } = (message ?? {}) as { id?: unknown; params?: { _meta?: unknown } };
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[MCP_META_KEYS.protocolVersion];
  return {
    ...observedRequestOf(method, undefined, http),
    requestId: typeof id === 'string' || typeof id === 'number' ? id : undefined,
    protocolVersion: typeof version === 'string' ? version : undefined,
    meta,
  };
}
