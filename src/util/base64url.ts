const BASE64URL = /^[A-Za-z0-9_-]*$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/**
 * Whether the last character of unpadded base64url `text` leaves its unused low bits zero: 4
 * bits when it encodes one trailing byte, 2 when it encodes two.
 */
function hasCanonicalTail(text: string): boolean {
  const unusedBits = [0, 0, 4, 2][text.length % 4];
  if (!unusedBits) return true;
  const value = ALPHABET.indexOf(text[text.length - 1]);
  return (value & ((1 << unusedBits) - 1)) === 0;
}

/** Strict, canonical base64url decoding (Node's decoder silently skips invalid characters). */
export function fromBase64Url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  // Non-canonical trailing bits would let two spellings decode to the same bytes.
  if (!hasCanonicalTail(text)) return undefined;
  return Buffer.from(text, 'base64url');
}
