/** Character codes and small scanners shared by the passes that read JSON text without parsing it. */

/** @internal */
export const QUOTE = 0x22;
/** @internal */
export const BACKSLASH = 0x5c;
/** @internal */
export const MINUS = 0x2d;
/** @internal */
export const DIGIT_0 = 0x30;
/** @internal */
export const DIGIT_9 = 0x39;

/** Whether `code` starts a JSON number token. @internal */
export function startsNumber(code: number): boolean {
  return (code >= DIGIT_0 && code <= DIGIT_9) || code === MINUS;
}

// Sticky: each search starts exactly where it is put and the native matcher walks the digits,
// several times faster than a loop over char codes on the 1,024-digit numbers the limits allow.
/** The characters that can continue a JSON number token. */
const NUMBER_REST = /[-+.0-9eE]*/y;
/** A number token's characters before its exponent marker. */
const MANTISSA = /[-+.0-9]*/y;

/** The end (exclusive) of the number token starting at `start`. @internal */
export function numberEnd(text: string, start: number): number {
  NUMBER_REST.lastIndex = start + 1;
  NUMBER_REST.test(text);
  return NUMBER_REST.lastIndex;
}

/**
 * The index of the `e` or `E` in the number token `[start, end)`, or `end` when it has none.
 * @internal
 */
export function exponentMarker(text: string, start: number, end: number): number {
  MANTISSA.lastIndex = start;
  MANTISSA.test(text);
  return Math.min(MANTISSA.lastIndex, end);
}

/**
 * The index of the quote closing the string that opens at `start`, found with the native search
 * (escaped quotes skipped); -1 when the string never closes.
 * @internal
 */
export function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    for (let j = end - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return -1;
}
