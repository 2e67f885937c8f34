import { createHash } from 'node:crypto';
import type { McpInputRequest } from '../input/mcp-input-request';
import { canonicalJson } from '../state/canonical-json';

/**
 * SHA-256 (base64url, 43 characters) of a question as sent: its method and parameters in canonical
 * JSON, so key order and number spelling do not matter but every word of the message and schema does.
 */
export function questionFingerprint(request: McpInputRequest): string {
  return createHash('sha256').update(canonicalJson(request.toJSON()), 'utf8').digest('base64url');
}
