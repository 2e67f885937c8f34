import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export const PROTOCOL_VERSION = '2026-07-28';

/** Connects an official SDK client pinned to the 2026-07-28 revision; close it when done. */
export async function connectClient(
  url: URL,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client(
    { name: 'nestjs-mcp-e2e', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } },
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** A 2026-07-28 JSON-RPC request body, with the `_meta` envelope every modern request carries. */
export function rpcBody(
  method: string,
  params: Record<string, unknown> = {},
  id: number | string = 1,
): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** The HTTP headers of a 2026-07-28 request for `method` (and its `Mcp-Name`, when it has one). */
export function rpcHeaders(method: string, name?: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': PROTOCOL_VERSION,
    'Mcp-Method': method,
    ...(name === undefined ? {} : { 'Mcp-Name': name }),
  };
}
