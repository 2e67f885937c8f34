import { LosslessNumber } from 'lossless-json';

/** How deep a value may nest before it is refused (a hostile record is otherwise a stack bomb). */
const MAX_DEPTH = 64;

/**
 * The JSON Canonicalization Scheme of RFC 8785: object members sorted by the UTF-16 code units of
 * their names, numbers as ECMAScript serializes them (`1e+30`, `0.002`, `-0` as `0`), strings as
 * `JSON.stringify` escapes them, no whitespace. What an audit record's `event_hash` is computed
 * over, so any RFC 8785 implementation (and `sha256sum`) reproduces it. Members whose value is
 * `undefined` are left out, as `JSON.stringify` leaves them; a `toJSON()` is honoured (a `Date`); a
 * `LosslessNumber` counts as the IEEE 754 double it names (RFC 8785 is defined over I-JSON).
 * Throws a `TypeError` for a non-finite number, a bigint, a function or a symbol.
 * @internal
 */
export function rfc8785Json(value: unknown): string {
  return encode(value, 0);
}

function encode(value: unknown, depth: number): string {
  if (depth > MAX_DEPTH) throw new TypeError('value nests too deeply');
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('non-finite number');
      // ECMAScript's Number::toString is RFC 8785's number form; it already writes -0 as 0.
      return String(value);
    case 'object':
      break;
    default:
      throw new TypeError(`cannot encode ${typeof value} as JSON`);
  }
  if (value instanceof LosslessNumber) return encode(Number(value.value), depth);
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const item = value[index] as unknown;
      text += (index === 0 ? '' : ',') + (item === undefined ? 'null' : encode(item, depth + 1));
    }
    return `${text}]`;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return encode(toJSON.call(value) as unknown, depth + 1);
  const record = value as Record<string, unknown>;
  // Array.prototype.sort compares strings by UTF-16 code units: RFC 8785's member order.
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${encode(member, depth + 1)}`;
  }
  return `${text}}`;
}
