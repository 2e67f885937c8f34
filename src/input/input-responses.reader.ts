import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../kit/errors/mcp-error-codes';
import { clip } from '../kit/clip';
import { parseInputResponse } from './input-response.parser';
import type { McpInputResponse } from './mcp-input-response';
import { McpInputResponses } from './mcp-input-responses';

/**
 * A round's `inputResponses` as sent, their protocol shapes checked (as the kinds the previous
 * round asked for, when the state says), or a -32602 naming the first key that is not a valid
 * result. Keys are the client's: kept as data, even `"__proto__"`, and found as own properties.
 * @internal
 */
export function readInputResponses(
  raw: unknown,
  askedKinds: Readonly<Record<string, McpInputResponse['kind']>> | undefined,
): McpInputResponses {
  if (raw === undefined) return McpInputResponses.empty();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ProtocolError(
      McpErrorCode.InvalidParams,
      'Invalid params: inputResponses must be an object',
    );
  }
  // A Map keeps every key as data (even "__proto__"), and is what the responses are held in.
  const responses = new Map<string, McpInputResponse>();
  const record = raw as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const asked = askedKinds && Object.hasOwn(askedKinds, key) ? askedKinds[key] : undefined;
    const parsed = parseInputResponse(record[key], asked);
    if (!parsed) {
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        `Invalid params: input response "${clip(key)}" is not a valid result`,
        { key: clip(key) },
      );
    }
    responses.set(key, parsed);
  }
  return McpInputResponses.read(responses, askedKinds ? Object.keys(askedKinds) : undefined);
}
