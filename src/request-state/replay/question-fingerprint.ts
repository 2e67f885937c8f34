import type { McpInputRequest } from '../../input/mcp-input-request';
import { canonicalJson } from '../../kit/canonical-json';
import { sha256Base64Url } from '../../kit/sha256';

/**
 * SHA-256 (base64url, 43 characters) of a question as sent: its method and parameters in canonical
 * JSON, so key order and number spelling do not matter but every word of the message and schema does.
 * @internal
 */
export function questionFingerprint(request: McpInputRequest): string {
  return sha256Base64Url(canonicalJson(request.toJSON()));
}
