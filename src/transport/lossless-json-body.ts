import { LosslessNumber, parse } from 'lossless-json';
import type { JsonBodyLimits } from './json-body-limits';

/** The outcome of parsing a request body. */
export type ParsedJsonBody =
  | { ok: true; lossless: unknown; plain: unknown }
  | { ok: false; reason: 'unparsable' | 'too_deep' }
  | { ok: false; reason: 'number_out_of_bounds'; id: unknown };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** Deepest `[`/`{` nesting of a JSON text, found without parsing (so a hostile body cannot exhaust the stack). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (OPENERS.has(code)) deepest = Math.max(deepest, ++depth);
    else if (CLOSERS.has(code)) depth--;
  }
  return deepest;
}

function numberWithinBounds(token: string, limits: JsonBodyLimits): boolean {
  if (token.length > limits.maxNumberLength) return false;
  const exponent = /[eE]([+-]?)(\d+)$/.exec(token);
  if (!exponent) return true;
  const digits = exponent[2].replace(/^0+/, '');
  return digits.length <= 6 && Number(digits || '0') <= limits.maxExponent;
}

/** Replaces every exact number by a JavaScript number, for consumers that want plain JSON. */
export function toPlainJson(value: unknown): unknown {
  // Same value JSON.parse would give: big integers and long decimals round, as for any plain JSON reader.
  if (value instanceof LosslessNumber) return Number(value.value);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value !== null && typeof value === 'object') {
    const plain: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) plain[key] = toPlainJson(member);
    return plain;
  }
  return value;
}

/**
 * Parses a JSON body keeping every number's exact text (as `LosslessNumber`), within the given
 * depth and number bounds. Also returns the plain form the SDK consumes.
 */
export function parseJsonBody(text: string, limits: JsonBodyLimits): ParsedJsonBody {
  if (nestingDepth(text) > limits.maxDepth) return { ok: false, reason: 'too_deep' };
  let outOfBounds = false;
  let lossless: unknown;
  try {
    lossless = parse(text, null, (token: string) => {
      if (!numberWithinBounds(token, limits)) outOfBounds = true;
      return new LosslessNumber(token);
    });
  } catch {
    return { ok: false, reason: 'unparsable' };
  }
  if (outOfBounds) {
    const id =
      lossless !== null && typeof lossless === 'object'
        ? (lossless as { id?: unknown }).id
        : undefined;
    return { ok: false, reason: 'number_out_of_bounds', id: toPlainJson(id) };
  }
  return { ok: true, lossless, plain: toPlainJson(lossless) };
}
