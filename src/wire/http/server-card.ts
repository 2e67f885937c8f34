import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProtectedResource } from '../../auth/protected-resource';
import type { ServerInfo } from '../protocol/server.options';
import { MCP_PROTOCOL_VERSION } from '../../kit/mcp.constants';
import { sha256Base64Url } from '../../kit/sha256';

/** The draft card's schema (SEP-2127; experimental-ext-server-card, schema v1). */
const CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const MEDIA_TYPE = 'application/mcp-server-card+json';
/** CORS of the draft: any origin may read a card, and revalidate it. */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

/** The path of the card: `<endpoint>/server-card`. @internal */
export function serverCardPath(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/server-card`;
}

/**
 * The experimental MCP server card (SEP-2127, draft; the `experimental-ext-server-card` schema
 * v1): what the server is and where it listens, for clients that discover before they connect.
 * Everything comes from what the module already says — `serverInfo` (name, version, title,
 * description, website), the endpoint's public URL (`auth.resource`, else the request's host, as
 * the RFC 9728 metadata says it), the revisions it serves: `server/discover`'s `supportedVersions`
 * and, with 2025-era sessions, the ones `initialize` negotiates. No tools, no capabilities: the
 * draft leaves those to the connection.
 * @internal
 */
export class ServerCard {
  constructor(
    private readonly serverInfo: ServerInfo,
    private readonly resource: ProtectedResource,
    private readonly legacyVersions: () => readonly string[],
  ) {}

  /** The card for a request (its URL is the request's), or `undefined` when the host is unusable. */
  cardOf(req: IncomingMessage): Record<string, unknown> | undefined {
    const url = this.resource.resourceOf(req);
    if (!url) return undefined;
    const { name, version, title, description, websiteUrl } = this.serverInfo;
    return {
      $schema: CARD_SCHEMA,
      name,
      version,
      description,
      ...(title !== undefined && { title }),
      ...(websiteUrl !== undefined && { websiteUrl }),
      remotes: [
        {
          type: 'streamable-http',
          url: url.href,
          supportedProtocolVersions: [MCP_PROTOCOL_VERSION, ...this.legacyVersions()],
        },
      ],
    };
  }

  /**
   * Answers `GET` and `HEAD` with the card (`ETag`, `304` for a matching `If-None-Match`), the CORS
   * preflight, and `405` for anything else.
   */
  serve(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...CORS, allow: 'GET, HEAD, OPTIONS' }).end();
      return;
    }
    const card = this.cardOf(req);
    if (!card) {
      res.writeHead(400, CORS).end();
      return;
    }
    const body = JSON.stringify(card);
    const etag = `"${sha256Base64Url(body)}"`;
    const headers = { ...CORS, etag, 'cache-control': 'public, max-age=3600' };
    if (matches(req.headers['if-none-match'], etag)) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, {
      ...headers,
      'content-type': MEDIA_TYPE,
      'content-length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}

/** Whether `If-None-Match` names `etag` (or is `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((entry) => entry.trim().replace(/^W\//, ''))
    .some((entry) => entry === etag || entry === '*');
}
