/**
 * What `JSON.stringify` leaves as it is but a terminal or log viewer may act on: DEL and the C1
 * controls (U+009B starts an escape sequence in some terminals), the line and paragraph separators,
 * and the invisible and bidirectional formatting characters that make text read other than it is.
 */
const UNSAFE_FOR_LOGS =
  /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Untrusted text — a file or folder name, a skill name, anything a client or the filesystem chose —
 * as it may appear in a message or log line: in double quotes, with every control, separator and
 * formatting character escaped as JSON escapes them (`\n`, `\u001b`), so it can neither end the
 * line, forge another, move the cursor or colour a terminal, nor hide what it is. With
 * `maxLength`, at most that many characters of it (then `…`), so a client cannot flood a log.
 * @internal
 */
export function quoted(value: unknown, maxLength = Infinity): string {
  const text = String(value);
  const kept = text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
  return JSON.stringify(kept).replace(UNSAFE_FOR_LOGS, unicodeEscape);
}
