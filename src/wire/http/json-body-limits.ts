/** Bounds applied while reading and parsing a request body. @internal */
export interface JsonBodyLimits {
  maxBytes: number;
  /** Time a body may take to arrive, in ms. */
  timeoutMs: number;
  /** Bytes that large bodies (beyond their first 64 KiB) may hold at once; more are answered 503. */
  maxInFlightBytes: number;
  maxDepth: number;
  maxNumberLength: number;
  maxExponent: number;
  /** JSON values in the whole body (objects, arrays, strings, numbers, literals). */
  maxNodes: number;
  /** Members of any one object. */
  maxObjectKeys: number;
  /** Items of any one array. */
  maxArrayLength: number;
  /** Characters of any one string or key, as written (escapes count as written). */
  maxStringLength: number;
}
