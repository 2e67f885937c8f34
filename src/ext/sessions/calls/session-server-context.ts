import type { ServerContext } from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../../../kit/mcp.constants';
import { MCP_TASKS_EXTENSION } from '../../tasks/store/mcp-task.types';
import type { McpSessionRecord } from '../store/session-record';

const ENVELOPE_KEYS = new Set<string>(Object.values(MCP_META_KEYS));

/** What a request of a session is, for its SDK-shaped context. @internal */
export interface SessionRequestMessage {
  readonly id: string | number;
  readonly method: string;
  readonly params?: { readonly _meta?: unknown } & Record<string, unknown>;
}

/**
 * What the client declared for this request, from its session: the per-request envelope a
 * 2026-07-28 request carries in `_meta`, filled from what the client declared at `initialize`
 * (protocol version, client info and capabilities) and `logging/setLevel`. Everything that reads
 * the client's declarations — the operation context, capability gating, the request-state binding
 * — reads them here for both eras. `asTask` adds the tasks extension: a 2025-11-25 client asks for
 * a task per request with `params.task`, which is what declaring the extension on a request means.
 * @internal
 */
export function sessionEnvelope(
  session: McpSessionRecord,
  asTask = false,
): Record<string, unknown> {
  const capabilities = asTask
    ? {
        ...session.clientCapabilities,
        extensions: {
          ...(session.clientCapabilities.extensions as Record<string, unknown> | undefined),
          [MCP_TASKS_EXTENSION]: {},
        },
      }
    : session.clientCapabilities;
  return {
    [MCP_META_KEYS.protocolVersion]: session.protocolVersion,
    [MCP_META_KEYS.clientInfo]: session.clientInfo,
    [MCP_META_KEYS.clientCapabilities]: capabilities,
    ...(session.logLevel !== undefined && { [MCP_META_KEYS.logLevel]: session.logLevel }),
  };
}

/**
 * The request's own `_meta` without envelope keys a 2025 client has no business sending.
 * @internal
 */
export function ownMeta(message: SessionRequestMessage): Record<string, unknown> {
  const sent = message.params?._meta;
  const meta: Record<string, unknown> = {};
  if (sent !== null && typeof sent === 'object')
    for (const [key, value] of Object.entries(sent))
      if (!ENVELOPE_KEYS.has(key)) Object.defineProperty(meta, key, { value, enumerable: true });
  return meta;
}

/**
 * The SDK-shaped context of one request of a session: its id, method and own `_meta` (a progress
 * token among them), the envelope from the session, the request's abort signal, and `notify`
 * writing to the request's own stream.
 * @internal
 */
export function sessionServerContext(
  session: McpSessionRecord,
  message: SessionRequestMessage,
  signal: AbortSignal,
  notify: (notification: { method: string; params?: unknown }) => Promise<void>,
  asTask = false,
): ServerContext {
  return {
    sessionId: session.sessionId,
    mcpReq: {
      id: message.id,
      method: message.method,
      _meta: ownMeta(message),
      envelope: sessionEnvelope(session, asTask),
      signal,
      notify,
    },
  } as unknown as ServerContext;
}
