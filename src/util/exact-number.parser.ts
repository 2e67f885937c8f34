import { randomBytes } from 'node:crypto';
import { LosslessNumber } from 'lossless-json';
import { closingQuote, numberEnd, QUOTE, startsNumber } from './json-lexing';

// Secret per process and never sent anywhere, so a client cannot write a string that imitates a
// marker; the counter makes every call's marker different without asking for random bytes each time.
const MARKER_PREFIX = `\u0001${randomBytes(12).toString('base64url')}`;
let markerCount = 0;

/**
 * Parses JSON keeping every number's exact text as a `LosslessNumber`, with the native parser:
 * each number token is first rewritten as a string carrying a marker no client can imitate, and
 * turned back into a `LosslessNumber` as the native parser hands it over. Far cheaper than a
 * parser written in JavaScript on string-heavy bodies. Throws on malformed JSON.
 */
export function parseWithExactNumbers(text: string): unknown {
  markerCount = (markerCount + 1) % Number.MAX_SAFE_INTEGER;
  const marker = `${MARKER_PREFIX}${markerCount}:`;
  const escapedMarker = `\\u0001${marker.slice(1)}`;
  const parts: string[] = [];
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const close = closingQuote(text, i);
      i = close === -1 ? text.length : close;
      continue;
    }
    if (startsNumber(code)) {
      const end = numberEnd(text, i);
      parts.push(text.slice(copied, i), '"', escapedMarker, text.slice(i, end), '"');
      copied = end;
      i = end - 1;
    }
  }
  parts.push(text.slice(copied));
  return JSON.parse(parts.join(''), (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(marker)
      ? new LosslessNumber(value.slice(marker.length))
      : value,
  );
}
