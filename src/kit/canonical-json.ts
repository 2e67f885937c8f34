import { LosslessNumber } from 'lossless-json';

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A number's value in one spelling: `1`, `1.0` and `10e-1` all become `1e0`. @internal */
export function canonicalNumber(text: string): string {
  const match = NUMBER.exec(text);
  if (!match) throw new TypeError('not a JSON number');
  const [, sign, integer, fraction = '', exponent = '0'] = match;
  let digits = (integer + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let scale = Number(exponent) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  scale += digits.length - trimmed.length;
  digits = trimmed;
  return `${sign}${digits}e${scale}`;
}

/** {@link canonicalNumber} for safe integers, without a regular expression (headers are full of them). */
function canonicalInteger(value: number): string {
  if (value === 0) return '0';
  let digits = String(Math.abs(value));
  let scale = 0;
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale++;
  }
  return `${value < 0 ? '-' : ''}${digits}e${scale}`;
}

/**
 * Deterministic JSON: object keys sorted, numbers in canonical form, no whitespace. Used for
 * associated data and parameter digests, never for what clients see.
 * @internal
 */
export function canonicalJson(value: unknown): string {
  if (value instanceof LosslessNumber) return canonicalNumber(value.value);
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return canonicalInteger(value);
    if (!Number.isFinite(value)) throw new TypeError('non-finite number');
    return canonicalNumber(String(value));
  }
  if (value === null || typeof value === 'boolean' || typeof value === 'string')
    return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++)
      text += (index === 0 ? '' : ',') + canonicalJson(value[index]);
    return `${text}]`;
  }
  if (typeof value === 'object') return canonicalObject(value as Record<string, unknown>);
  throw new TypeError(`cannot encode ${typeof value} as JSON`);
}

/** Arrays up to this length are sorted in place by insertion, which allocates nothing. */
const INSERTION_SORT_MAX = 16;

/**
 * Sorts keys into code-unit order, as `<` compares: the order RFC 8785 prescribes. Objects in MCP
 * params are small; `Array.prototype.sort` allocates its work state on every call.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > INSERTION_SORT_MAX) {
    keys.sort();
    return;
  }
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index];
    let at = index - 1;
    while (at >= 0 && keys[at] > key) {
      keys[at + 1] = keys[at];
      at--;
    }
    keys[at + 1] = key;
  }
}

/** A member as {@link canonicalJson} encodes it; `undefined` leaves it out. */
function encodeMember(_key: string, value: unknown): string | undefined {
  return value === undefined ? undefined : canonicalJson(value);
}

/**
 * {@link canonicalJson} of an object, each member encoded by `encode` (which may leave it out by
 * returning `undefined`, or encode another value); `alsoKeys` are offered to `encode` even when the
 * object lacks them. Spares callers a filtered copy of the object.
 * @internal
 */
export function canonicalObject(
  record: Readonly<Record<string, unknown>>,
  encode: (key: string, value: unknown) => string | undefined = encodeMember,
  alsoKeys?: readonly string[],
): string {
  const keys = Object.keys(record);
  if (alsoKeys) for (const key of alsoKeys) if (!Object.hasOwn(record, key)) keys.push(key);
  sortKeys(keys);
  let text = '{';
  for (const key of keys) {
    const member = encode(key, record[key]);
    if (member === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${member}`;
  }
  return `${text}}`;
}
