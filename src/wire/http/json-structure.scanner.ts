import type { JsonBodyLimits } from './json-body-limits';
import {
  closingQuote,
  exponentMarker,
  numberEnd,
  QUOTE,
  startsNumber,
} from '../../kit/json-lexing';

/** Which bound a JSON text breaks, found before it is parsed. @internal */
export type JsonStructureProblem =
  | 'too_deep'
  | 'too_many_nodes'
  | 'object_too_large'
  | 'array_too_long'
  | 'string_too_long'
  | 'number_out_of_bounds';

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const LOWER_N = 0x6e;
const LOWER_T = 0x74;
const LOWER_F = 0x66;

/** Whether a number token's length and exponent are within bounds. */
function numberWithinBounds(text: string, start: number, end: number, limits: JsonBodyLimits) {
  if (end - start > limits.maxNumberLength) return false;
  const marker = exponentMarker(text, start, end);
  if (marker === end) return true;
  let digits = text
    .slice(marker + 1, end)
    .replace(/^[+-]/, '')
    .replace(/^0+/, '');
  if (digits === '') digits = '0';
  return digits.length <= 6 && Number(digits) <= limits.maxExponent;
}

/**
 * Checks the shape of a JSON text against the body limits in one pass, without parsing it, so a
 * hostile body is refused before any work proportional to its values is done: nesting depth,
 * values in total, members per object, items per array, string and number lengths, exponents.
 * Malformed text is left for the parser to refuse.
 * @internal
 */
export function scanJsonStructure(
  text: string,
  limits: JsonBodyLimits,
): JsonStructureProblem | undefined {
  // Members (or items) seen so far in each open container; commas count the rest.
  const counts: number[] = [];
  const isObject: boolean[] = [];
  let nodes = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = closingQuote(text, i);
      if (end === -1) return undefined;
      if (end - i - 1 > limits.maxStringLength) return 'string_too_long';
      if (++nodes > limits.maxNodes) return 'too_many_nodes';
      i = end;
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (counts.length >= limits.maxDepth) return 'too_deep';
      if (++nodes > limits.maxNodes) return 'too_many_nodes';
      counts.push(0);
      isObject.push(code === OPEN_OBJECT);
      continue;
    }
    if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      counts.pop();
      isObject.pop();
      continue;
    }
    if (code === COMMA) {
      const top = counts.length - 1;
      if (top < 0) continue;
      const count = ++counts[top] + 1;
      if (isObject[top] ? count > limits.maxObjectKeys : count > limits.maxArrayLength) {
        return isObject[top] ? 'object_too_large' : 'array_too_long';
      }
      continue;
    }
    if (startsNumber(code)) {
      const end = numberEnd(text, i);
      if (!numberWithinBounds(text, i, end, limits)) return 'number_out_of_bounds';
      if (++nodes > limits.maxNodes) return 'too_many_nodes';
      i = end - 1;
      continue;
    }
    if (code === LOWER_N || code === LOWER_T || code === LOWER_F) {
      if (++nodes > limits.maxNodes) return 'too_many_nodes';
      i += code === LOWER_F ? 4 : 3;
    }
  }
  return undefined;
}
