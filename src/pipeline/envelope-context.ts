import type { ServerContext } from '@modelcontextprotocol/server';
import { MCP_META_KEYS } from '../kit/mcp.constants';

const ENVELOPE_KEYS = new Set<string>(Object.values(MCP_META_KEYS));

/**
 * The SDK context a method would get for a request with this `_meta`, for work that runs outside
 * an SDK request (a task step, a task stream): the envelope keys apart, nothing streamed.
 * @internal
 */
export function envelopeContext(
  id: string | number,
  method: string,
  sentMeta: unknown,
  signal: AbortSignal,
): ServerContext {
  const envelope: Record<string, unknown> = {};
  const meta: Record<string, unknown> = {};
  if (sentMeta !== null && typeof sentMeta === 'object')
    for (const [key, value] of Object.entries(sentMeta))
      (ENVELOPE_KEYS.has(key) ? envelope : meta)[key] = value;
  // Progress of a task goes to its status message, never to a request's token.
  delete meta.progressToken;
  return {
    mcpReq: { id, method, _meta: meta, envelope, signal, notify: async () => undefined },
  } as unknown as ServerContext;
}
