const BASE64URL = /^[A-Za-z0-9_-]*$/;

export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Strict, canonical base64url decoding (Node's decoder silently skips invalid characters). */
export function fromBase64Url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // Non-canonical trailing bits would let two spellings decode to the same bytes.
  return bytes.toString('base64url') === text ? bytes : undefined;
}
