/** @internal */
export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/**
 * Strict, canonical base64url decoding. Node's decoder silently skips invalid characters, takes
 * `+`, `/` and `=` too and ignores non-zero unused bits of the last character, so two spellings
 * could decode to the same bytes: only the text the bytes encode back to, exactly, is accepted.
 * (Decoding and encoding again, both native, costs less than checking the alphabet in a regular
 * expression and the last character's bits in JavaScript.)
 * @internal
 */
export function fromBase64Url(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}
