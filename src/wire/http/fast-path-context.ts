import type { IncomingMessage } from 'node:http';
import type { ServerContext } from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../../kit/mcp.constants';

const ENVELOPE_KEYS = new Set<string>(Object.values(MCP_META_KEYS));

/**
 * The SDK-shaped context of a request the fast path serves: its `_meta` split into the per-request
 * envelope and the rest, as the SDK splits it, and the bearer token's principal when the resource
 * server found one.
 * @internal
 */
export function fastPathContextOf(
  id: string | number,
  method: string,
  meta: Record<string, unknown>,
  req: IncomingMessage & { auth?: unknown },
  signal: AbortSignal,
): ServerContext {
  const envelope: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) {
    if (ENVELOPE_KEYS.has(key)) envelope[key] = value;
    else rest[key] = value;
  }
  return {
    mcpReq: {
      id,
      method,
      _meta: rest,
      envelope,
      signal,
      // Nothing is streamed on this path (requests asking for progress or logs take the SDK's).
      notify: async () => undefined,
    },
    http: req.auth === undefined ? undefined : { authInfo: req.auth },
  } as unknown as ServerContext;
}
