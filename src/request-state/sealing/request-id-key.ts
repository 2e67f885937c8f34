import { canonicalJson } from '../../kit/canonical-json';
import { sha256Base64Url } from '../../kit/sha256';

/** Ids whose canonical JSON is longer are bound by a digest, so a state's size does not follow the id's. */
const MAX_CLEAR_REQUEST_ID_CHARS = 64;

/**
 * A JSON-RPC id as JSON-RPC compares ids: its canonical JSON (`1`, `1.0` and `1e0` alike, `1` and
 * `"1"` different), or `#` and its SHA-256 when that is longer than 64 characters.
 * @internal
 */
export function requestIdKey(id: string | number): string {
  // JSON has no spelling for a non-finite number; keep one anyway, distinct from every string.
  const canonical = typeof id === 'number' && !Number.isFinite(id) ? String(id) : canonicalJson(id);
  return canonical.length <= MAX_CLEAR_REQUEST_ID_CHARS
    ? canonical
    : `#${sha256Base64Url(canonical)}`;
}
