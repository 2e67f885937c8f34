import { LosslessNumber } from 'lossless-json';
import { setOwnValue } from './own-property';

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
  try {
    // A copy whose members are in RFC 8785's order is canonical as `JSON.stringify` writes it,
    // several times faster than encoding value by value; integer-like names are the exception
    // (JavaScript enumerates those first, in numeric order), encoded below.
    return JSON.stringify(inOrder(value, 0));
  } catch (error) {
    if (error !== INTEGER_LIKE_NAME) throw error;
    return encode(value, 0);
  }
}

/**
 * Sorts `names` in RFC 8785's member order (by UTF-16 code units), in place: an insertion sort,
 * which allocates nothing and takes one pass over names already nearly in order — for building a
 * record whose members are in order from the start, so that {@link rfc8785Json} copies nothing.
 * @internal
 */
export function sortMemberNames(names: string[]): string[] {
  for (let index = 1; index < names.length; index++) {
    const name = names[index] as string;
    let at = index - 1;
    while (at >= 0 && (names[at] as string) > name) {
      names[at + 1] = names[at] as string;
      at--;
    }
    names[at + 1] = name;
  }
  return names;
}

/** Thrown by {@link inOrder} for a member name that an object cannot keep in RFC 8785's order. */
const INTEGER_LIKE_NAME = new Error('integer-like member name');

/** `value` with its objects rebuilt in sorted member order; refuses what RFC 8785 cannot hold. */
function inOrder(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new TypeError('value nests too deeply');
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('non-finite number');
      return value;
    case 'object':
      break;
    default:
      throw new TypeError(`cannot encode ${typeof value} as JSON`);
  }
  if (value === null) return null;
  if (value instanceof LosslessNumber) return inOrder(Number(value.value), depth);
  if (Array.isArray(value)) {
    // `JSON.stringify` writes a missing item as `null`, as RFC 8785 does: only changed items copy.
    let items: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index] as unknown;
      if (item === undefined) continue;
      const made = inOrder(item, depth + 1);
      if (made !== item) (items ??= value.slice())[index] = made;
    }
    return items ?? value;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return inOrder(toJSON.call(value) as unknown, depth + 1);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // An object already in order whose members need no change is written as it is: no copy.
  let ordered = true;
  let made: unknown[] | undefined;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (index > 0 && (keys[index - 1] as string) >= key) ordered = false;
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57 && isIndexName(key)) throw INTEGER_LIKE_NAME;
    const member = record[key];
    if (member === undefined) continue;
    const madeMember = inOrder(member, depth + 1);
    if (madeMember !== member) (made ??= new Array<unknown>(keys.length))[index] = madeMember;
  }
  if (ordered && !made) return record;
  // The members as written, by name (a copy only when some changed and the order must too).
  let source = record;
  if (made && !ordered) {
    source = { ...record };
    for (let index = 0; index < keys.length; index++)
      if (made[index] !== undefined) setOwnValue(source, keys[index] as string, made[index]);
  }
  const copy: Record<string, unknown> = {};
  if (ordered) {
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index] as string;
      const member = made?.[index] ?? record[key];
      if (member !== undefined) setOwnValue(copy, key, member);
    }
    return copy;
  }
  // Few names sort in place without the built-in sort's scratch copies; many, in n log n.
  if (keys.length <= SORTED_IN_PLACE) sortMemberNames(keys);
  else keys.sort();
  for (const key of keys) {
    const member = source[key];
    if (member !== undefined) setOwnValue(copy, key, member);
  }
  return copy;
}

/** The most names an object's members may have to be sorted by insertion (quadratic at worst). */
const SORTED_IN_PLACE = 16;

/** Whether JavaScript treats `key` as an array index (and so orders it before other names). */
function isIndexName(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
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
