/** Bounds applied while parsing a request body. */
export interface JsonBodyLimits {
  maxBytes: number;
  maxDepth: number;
  maxNumberLength: number;
  maxExponent: number;
}
