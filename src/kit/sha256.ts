import { hash } from 'node:crypto';

/**
 * SHA-256 of `text` (UTF-8) as unpadded base64url, 43 characters. One native call: no `Hash`
 * object to create and collect, which costs a request far more than the hashing itself.
 * @internal
 */
export function sha256Base64Url(text: string): string {
  return hash('sha256', text, 'base64url');
}
