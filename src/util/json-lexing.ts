/** Character codes and small scanners shared by the passes that read JSON text without parsing it. */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const MINUS = 0x2d;
export const DIGIT_0 = 0x30;
export const DIGIT_9 = 0x39;
export const LOWER_E = 0x65;
export const UPPER_E = 0x45;

/** Whether `code` starts a JSON number token. */
export function startsNumber(code: number): boolean {
  return (code >= DIGIT_0 && code <= DIGIT_9) || code === MINUS;
}

/** Whether `code` can continue a JSON number token. */
export function continuesNumber(code: number): boolean {
  return (
    (code >= DIGIT_0 && code <= DIGIT_9) ||
    code === 0x2e ||
    code === LOWER_E ||
    code === UPPER_E ||
    code === 0x2b ||
    code === MINUS
  );
}

/** The end (exclusive) of the number token starting at `start`. */
export function numberEnd(text: string, start: number): number {
  let end = start + 1;
  while (end < text.length && continuesNumber(text.charCodeAt(end))) end++;
  return end;
}

/**
 * The index of the quote closing the string that opens at `start`, found with the native search
 * (escaped quotes skipped); -1 when the string never closes.
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
