import { PROTOCOL_VERSION } from '../../utils/mcp';

/** The module's default body limits (README configuration table). */
export const DEFAULT_LIMITS = {
  maxBytes: 4 * 1024 * 1024,
  maxDepth: 64,
  maxNodes: 20_000,
  maxObjectKeys: 1_000,
  maxArrayLength: 10_000,
  maxStringLength: 1_048_576,
  maxNumberLength: 1_024,
  maxExponent: 10_000,
  maxInFlightBytes: 33_554_432,
} as const;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON values in a parsed message, keys included: what `json.maxNodes` counts. */
export function jsonValueCount(value: unknown): number {
  if (Array.isArray(value)) {
    return value.reduce((sum: number, item) => sum + jsonValueCount(item), 1);
  }
  if (value !== null && typeof value === 'object') {
    return Object.values(value).reduce(
      (sum: number, member) => sum + 1 + jsonValueCount(member),
      1,
    );
  }
  return 1;
}

/** Containers open at the deepest point of a parsed message (a bare object is depth 1). */
export function jsonDepth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce((deepest: number, child) => Math.max(deepest, jsonDepth(child)), 0);
}

/** A number with a fraction, so that parsers do real work on it. */
const numberAt = (i: number): number => Math.round(i * 1000.137) / 1000 + 0.125;

/** Members of a `tools/call`'s params besides its name and arguments. */
export interface CallExtras {
  requestState?: string;
  inputResponses?: Json;
}

/** A 2026-07-28 `tools/call` message, with the `_meta` envelope of a client that can elicit. */
export function toolCallMessage(
  name: string,
  args: Record<string, Json>,
  extras: CallExtras = {},
  id = 1,
): Record<string, Json> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      ...(extras.requestState === undefined ? {} : { requestState: extras.requestState }),
      ...(extras.inputResponses === undefined ? {} : { inputResponses: extras.inputResponses }),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
      },
    },
  };
}

/**
 * Appends numbers to `arrays` (each up to `json.maxArrayLength` items, in order) until `message`
 * holds exactly `values` JSON values. The arrays must already be inside `message`.
 */
export function fillToValues(message: unknown, arrays: Json[][], values: number): void {
  let missing = values - jsonValueCount(message);
  if (missing < 0) throw new Error(`the message already holds ${values - missing} values`);
  for (const array of arrays) {
    while (missing > 0 && array.length < DEFAULT_LIMITS.maxArrayLength) {
      array.push(numberAt(array.length));
      missing--;
    }
  }
  if (missing > 0) throw new Error(`${missing} values do not fit in the arrays given`);
}

/** An object of `count` numeric members named `<prefix>0`, `<prefix>1`, … */
export function wideObject(count: number, prefix = 'k'): Record<string, Json> {
  const object: Record<string, Json> = {};
  for (let i = 0; i < count; i++) object[`${prefix}${i}`] = numberAt(i);
  return object;
}

/** `depth` arrays nested around one number. */
export function nestedArrays(depth: number): Json {
  let value: Json = 1.5;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** An accepted form answer. */
export function accepted(content: Record<string, Json>): Json {
  return { action: 'accept', content };
}

/**
 * The JSON text of `message` with each `"<token>"` string replaced by raw text, so that numbers
 * can be written exactly (`3.50`, 1,024-character numbers).
 */
export function withRawTokens(message: unknown, tokens: Record<string, string>): string {
  let text = JSON.stringify(message);
  for (const [token, raw] of Object.entries(tokens)) {
    const quoted = JSON.stringify(token);
    if (!text.includes(quoted)) throw new Error(`raw token ${token} not found`);
    text = text.split(quoted).join(raw);
  }
  return text;
}

/**
 * The JSON text of `build(strings)` (with `tokens` replaced as by {@link withRawTokens}), where
 * `strings` holds one ASCII string per entry of `lengths` (named `a`, `b`, …) and one more, `z`,
 * that pads the text to exactly `bytes` bytes.
 */
export function paddedWithStrings(
  build: (strings: Record<string, string>) => unknown,
  lengths: readonly number[],
  bytes: number,
  tokens: Record<string, string> = {},
): string {
  const named = lengths.map((length, i) => [String.fromCharCode(0x61 + i), 'x'.repeat(length)]);
  const text = (padding: number) =>
    withRawTokens(build({ ...Object.fromEntries(named), z: 'x'.repeat(padding) }), tokens);
  const padding = bytes - Buffer.byteLength(text(0));
  if (padding < 0) throw new Error(`the strings do not fit in ${bytes} bytes`);
  const padded = text(padding);
  if (Buffer.byteLength(padded) !== bytes) throw new Error('string padding miscounted');
  return padded;
}
