import { randomBytes } from 'node:crypto';
import { LosslessNumber } from 'lossless-json';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

function isNumberChar(code: number): boolean {
  return (
    (code >= DIGIT_0 && code <= DIGIT_9) ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45 ||
    code === 0x2b ||
    code === MINUS
  );
}

/** The index of the quote that closes the string opening at `start`. */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    for (let j = end - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/**
 * Parses JSON keeping every number's exact text as a `LosslessNumber`, with the native parser:
 * each number token is first rewritten as a string carrying an unguessable per-call marker, and
 * turned back into a `LosslessNumber` as the native parser hands it over. Far cheaper than a
 * parser written in JavaScript on string-heavy bodies. Throws on malformed JSON.
 */
export function parseWithExactNumbers(text: string): unknown {
  const marker = `\u0001${randomBytes(12).toString('base64url')}:`;
  const escapedMarker = `\\u0001${marker.slice(1)}`;
  const parts: string[] = [];
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i);
      continue;
    }
    if ((code >= DIGIT_0 && code <= DIGIT_9) || code === MINUS) {
      let end = i + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
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
