/**
 * What a JSON value held in memory costs, as a store counts it against its byte budget: its UTF-8
 * JSON bytes plus {@link BYTES_PER_JSON_VALUE} per value (object, array, member or item). Strings
 * cost about their length in V8's heap; structure costs more than its JSON spelling suggests (an
 * empty frozen object is ~64 bytes of heap for 2 bytes of JSON), so the per-value term keeps the
 * estimate above the heap a record really takes, whatever its shape.
 * @internal
 */
export const BYTES_PER_JSON_VALUE = 64;

/** The JSON values in `value` (itself, every member and item, every key). */
function jsonValues(value: unknown): number {
  if (Array.isArray(value)) {
    let count = 1;
    for (const item of value) count += jsonValues(item);
    return count;
  }
  if (value !== null && typeof value === 'object') {
    let count = 1;
    for (const member of Object.values(value as Record<string, unknown>))
      count += 1 + jsonValues(member);
    return count;
  }
  return 1;
}

/** The UTF-8 bytes of `value` as JSON (0 for what JSON cannot spell). @internal */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : Buffer.byteLength(text);
}

/**
 * The heap a JSON value held in memory is counted as (see {@link BYTES_PER_JSON_VALUE}).
 * @internal
 */
export function heapWeight(value: unknown): number {
  return jsonBytes(value) + BYTES_PER_JSON_VALUE * jsonValues(value);
}
