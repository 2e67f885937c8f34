import { randomBytes } from 'node:crypto';
import { LosslessNumber } from 'lossless-json';
import { closingQuote, numberEnd, QUOTE, startsNumber } from './json-lexing';

// Secret per process and never sent anywhere, so a client cannot write a string that imitates a
// marker; the counter makes every call's marker different without asking for random bytes each time.
const MARKER_PREFIX = `\u0001${randomBytes(12).toString('base64url')}`;
let markerCount = 0;

/** What V8 hands a `JSON.parse` reviver where the source text access of ES2026 is implemented. */
interface ReviverContext {
  readonly source?: string;
}

type Reviver = (this: unknown, key: string, value: unknown, context?: ReviverContext) => unknown;

const exactNumberReviver: Reviver = (_key, value, context) =>
  typeof value === 'number' ? new LosslessNumber(context?.source ?? String(value)) : value;

/** Whether this runtime's `JSON.parse` hands revivers each primitive's source text (Node ≥ 21). */
const hasSourceTextAccess =
  (
    JSON.parse('[1.0]', ((_key, value, context) =>
      typeof value === 'number' ? context?.source : value) as Reviver) as unknown[]
  )[0] === '1.0';

/**
 * Parses JSON keeping every number's exact text as a `LosslessNumber`, with the native parser.
 * Where `JSON.parse` gives a reviver each number's source text, that text is used as it is;
 * elsewhere each number token is first rewritten as a string carrying a marker no client can
 * imitate, and turned back into a `LosslessNumber` as the native parser hands it over. Either is far
 * cheaper than a parser written in JavaScript on string-heavy bodies. Throws on malformed JSON.
 * @internal
 */
export function parseWithExactNumbers(text: string): unknown {
  if (hasSourceTextAccess) return JSON.parse(text, exactNumberReviver as Reviver);
  return parseWithMarkedNumbers(text);
}

/** The rewrite-and-mark parse, for runtimes without source text access. @internal */
export function parseWithMarkedNumbers(text: string): unknown {
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
