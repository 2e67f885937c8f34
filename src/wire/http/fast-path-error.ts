import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { McpHttpRefusal } from '../../kit/errors/mcp-http-refusal.error';
import { MCP_PROTOCOL_VERSION } from '../../kit/mcp.constants';

/**
 * What the SDK answers on 2026-07-28 when a handler of tools/call, prompts/get or resources/read
 * throws the urlElicitationRequired error of earlier revisions (-32042), word for word.
 */
const URL_ELICITATION_THROWN = new ProtocolError(
  McpErrorCode.InternalError,
  `URL elicitation cannot be signalled by throwing UrlElicitationRequiredError on protocol revision ${MCP_PROTOCOL_VERSION}: return inputRequired({ inputRequests: { …: inputRequired.elicitUrl(...) } }) from the handler instead. The urlElicitationRequired error (-32042) of earlier revisions is not available on this revision.`,
);

/**
 * The HTTP status, JSON-RPC error and headers the fast path answers a thrown error with, as the SDK
 * path answers it: a protocol error as it is (a refusal with its status and challenge, a missing
 * capability 400), anything else a bare `-32603 Internal error`.
 * @internal
 */
export function errorAnswerOf(
  thrown: unknown,
  challenge: (refusal: McpHttpRefusal) => Record<string, string>,
): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const error =
    thrown instanceof ProtocolError
      ? thrown.code === ProtocolErrorCode.UrlElicitationRequired
        ? URL_ELICITATION_THROWN
        : thrown
      : new ProtocolError(McpErrorCode.InternalError, 'Internal error');
  const status =
    error instanceof McpHttpRefusal
      ? error.httpStatus
      : error.code === McpErrorCode.MissingRequiredClientCapability
        ? 400
        : 200;
  const body = {
    code: error.code,
    message: error.message,
    ...(error.data !== undefined && { data: error.data }),
  };
  return { status, body, headers: error instanceof McpHttpRefusal ? challenge(error) : {} };
}
