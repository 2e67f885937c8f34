import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether the SDK routes this POST to 2025-era serving (`initialize`, a request without the
 * per-request envelope, a posted answer): its own classifier decides.
 * @internal
 */
export function isLegacyRequest(req: IncomingMessage, message: unknown): boolean {
  return (
    classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header(req, 'mcp-protocol-version'),
      mcpMethodHeader: header(req, 'mcp-method'),
      mcpNameHeader: header(req, 'mcp-name'),
      body: message,
    }).kind === 'legacy'
  );
}
