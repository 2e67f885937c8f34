import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { ListenInterest, type ListenFilter } from './listen-stream-frames';

/** Headers that describe a body; the web request built here has none (the SDK gets it parsed). */
const BODY_HEADERS = new Set(['content-length', 'transfer-encoding', 'content-encoding']);

/**
 * The web `Request` an SDK handler is given for a listen request whose body it gets parsed: the
 * request's headers less those that describe a body, no body, `signal` its abort signal. @internal
 */
export function bodylessWebRequestOf(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || BODY_HEADERS.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: 'POST',
    headers,
    signal,
  });
}

/** A stream the SDK acknowledged and left open: what the stream needs to be served on. @internal */
export interface AcknowledgedListen {
  /** The listen request's id as JSON, as the SDK stamps it on every frame. */
  readonly idJson: string;
  readonly filter: ListenFilter;
}

/** The honored filter of the SDK's `notifications/subscriptions/acknowledged`. */
interface HonoredFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

/**
 * Has the SDK answer a parsed `subscriptions/listen` message and writes its answer to `res`: a
 * refusal (bad headers, version or filter) and an acknowledgement with nothing to follow (which
 * the SDK ends with the final result) end `res`; an acknowledgement of a filter leaves it open and
 * gives what serving it takes. The SDK's request is aborted before it is made, so the SDK
 * validates, acknowledges and forgets: no web stream, timer or bus listener of its outlives this
 * call, and every byte written so far is the SDK's own.
 * @internal
 */
export async function openListenStream(
  handler: McpHttpHandler,
  req: IncomingMessage & { auth?: unknown },
  res: ServerResponse,
  parsedBody: unknown,
): Promise<AcknowledgedListen | undefined> {
  const request = bodylessWebRequestOf(req, AbortSignal.abort());
  const options = {
    parsedBody,
    ...(req.auth === undefined ? {} : { authInfo: req.auth as never }),
  };
  const response = await handler.fetch(request, options);
  const chunks: Uint8Array[] = [];
  if (response.body !== null) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
      chunks.push(chunk);
  }
  if (res.destroyed) return undefined;
  const outgoing: Record<string, string> = {};
  response.headers.forEach((value, name) => (outgoing[name] = value));
  res.writeHead(response.status, outgoing);
  // Chunk by chunk, as piping the SDK's body wrote them: the same chunked framing on the wire.
  for (const chunk of chunks) res.write(chunk);
  const honored = response.status === 200 ? honoredFilterOf(chunks[0]) : undefined;
  if (!honored || Object.keys(honored).length === 0) {
    res.end();
    return undefined;
  }
  return {
    idJson: JSON.stringify((parsedBody as { id?: unknown }).id),
    filter: filterOf(honored),
  };
}

/** The acknowledged filter of a first SSE frame, if it is the SDK's acknowledgement. */
function honoredFilterOf(chunk: Uint8Array | undefined): HonoredFilter | undefined {
  if (!chunk) return undefined;
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
  const data = text.indexOf('\ndata: ');
  if (!text.startsWith('event: message') || data < 0) return undefined;
  const message = JSON.parse(text.slice(data + 7)) as {
    method?: unknown;
    params?: { notifications?: HonoredFilter };
  };
  return message.method === 'notifications/subscriptions/acknowledged'
    ? message.params?.notifications
    : undefined;
}

function filterOf(honored: HonoredFilter): ListenFilter {
  const interests =
    (honored.toolsListChanged ? ListenInterest.tools : 0) |
    (honored.promptsListChanged ? ListenInterest.prompts : 0) |
    (honored.resourcesListChanged ? ListenInterest.resources : 0);
  const uris = honored.resourceSubscriptions;
  return { interests, uris: uris && uris.length > 0 ? new Set(uris) : undefined };
}
