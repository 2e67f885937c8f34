import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProtectedResource } from '../../auth/protected-resource';

/**
 * Answers a request for the RFC 9728 protected-resource metadata, readable from any origin
 * (browser-based clients fetch it): the document for GET and HEAD, the CORS preflight for OPTIONS.
 * @internal
 */
export function serveMetadataDocument(
  resource: ProtectedResource,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, OPTIONS',
    'access-control-allow-headers': 'mcp-protocol-version',
  };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, cors).end();
    return;
  }
  const metadata =
    req.method === 'GET' || req.method === 'HEAD' ? resource.metadataOf(req) : undefined;
  if (!metadata) {
    res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 400 : 405, cors).end();
    return;
  }
  const body = JSON.stringify(metadata);
  res.writeHead(200, {
    ...cors,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'max-age=300',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
