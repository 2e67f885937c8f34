import type { IncomingHttpHeaders } from 'node:http';
import { clip } from '../../kit/clip';

/** The body field `Mcp-Name` mirrors, by method (SEP-2243, and SEP-2663 for `tasks/*`). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
const SENTINEL = { prefix: '=?base64?', suffix: '?=' };
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Values this long are answered here: the SDK's own answer would echo them, twice. */
const MAX_ECHOED = 128;

/** The -32020 a request gets when `Mcp-Name` and its body disagree. @internal */
export interface NameHeaderMismatch {
  readonly message: string;
  readonly data: { readonly mismatch: { readonly header: string; readonly body: string } };
}

function decoded(header: string): string | undefined {
  if (!(header.startsWith(SENTINEL.prefix) && header.endsWith(SENTINEL.suffix))) return header;
  const base64 = header.slice(SENTINEL.prefix.length, header.length - SENTINEL.suffix.length);
  return BASE64.test(base64) ? Buffer.from(base64, 'base64').toString('utf8') : undefined;
}

/**
 * The SDK's `Mcp-Name` cross-check, for values too long to echo: when the body's name, URI or task
 * id, or the header, is over 128 characters and the two disagree (or the header is missing), the
 * same -32020 the SDK would answer, with both values clipped — the SDK's answer would carry a
 * megabyte id twice. Shorter values, and headers that agree, are left to the SDK.
 * @internal
 */
export function longNameHeaderMismatch(
  headers: IncomingHttpHeaders,
  method: unknown,
  params: unknown,
): NameHeaderMismatch | undefined {
  if (headers['mcp-protocol-version'] === undefined || typeof method !== 'string') return undefined;
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method] : undefined;
  const body =
    field !== undefined && params !== null && typeof params === 'object'
      ? (params as Record<string, unknown>)[field]
      : undefined;
  if (field === undefined || typeof body !== 'string') return undefined;
  const raw = headers['mcp-name'];
  const header = typeof raw === 'string' ? raw.replace(/^[\t ]+|[\t ]+$/g, '') : undefined;
  if (body.length <= MAX_ECHOED && (header === undefined || header.length <= MAX_ECHOED))
    return undefined;
  if (header === undefined) {
    const text = `the body carries params.${field}="${clip(body)}" but the required Mcp-Name header is absent`;
    return mismatch('(missing)', text);
  }
  const name = decoded(header);
  if (name === body) return undefined;
  const text =
    name === undefined
      ? 'the Mcp-Name header carries an invalid Base64 sentinel value'
      : `the body carries params.${field}="${clip(body)}" but the Mcp-Name header names "${clip(name)}"`;
  return mismatch(clip(header), text);
}

function mismatch(header: string, body: string): NameHeaderMismatch {
  return {
    message: `Bad Request: the request headers and body disagree: ${body}`,
    data: { mismatch: { header, body } },
  };
}
