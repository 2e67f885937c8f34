import { fromBase64Url, toBase64Url } from '../../kit/base64url';

/** Longest cursor accepted, in characters: a key (a tool name, a prompt name, a URI) of ~6 KB. */
const MAX_CURSOR_LENGTH = 8192;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The cursor of a list page: the key of the last entry of the page before it, tagged with the
 * list it belongs to, in base64url. It holds no server state, so any instance of a fleet that
 * serves the same operations continues a listing another started.
 * @internal
 */
export function encodeListCursor(list: string, lastKey: string): string {
  return toBase64Url(Buffer.from(`${list}:${lastKey}`, 'utf8'));
}

/**
 * The key a cursor of `list` continues after, or `undefined` when it is not one of its cursors.
 * @internal
 */
export function decodeListCursor(list: string, cursor: string): string | undefined {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const bytes = fromBase64Url(cursor);
  if (!bytes) return undefined;
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  const prefix = `${list}:`;
  return text.startsWith(prefix) ? text.slice(prefix.length) : undefined;
}
