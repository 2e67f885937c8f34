import { ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * JSON-RPC error codes this module answers with: the SDK's where it defines them, the HTTP-auth
 * and header codes of the MCP specification otherwise. See `docs/errors.md`.
 *
 * @publicApi
 */
export const McpErrorCode = {
  ParseError: ProtocolErrorCode.ParseError,
  InvalidRequest: ProtocolErrorCode.InvalidRequest,
  MethodNotFound: ProtocolErrorCode.MethodNotFound,
  InvalidParams: ProtocolErrorCode.InvalidParams,
  InternalError: ProtocolErrorCode.InternalError,
  MissingRequiredClientCapability: ProtocolErrorCode.MissingRequiredClientCapability,
  UnsupportedProtocolVersion: ProtocolErrorCode.UnsupportedProtocolVersion,
  Unauthorized: -32001,
  Forbidden: -32003,
  HeaderMismatch: -32020,
  /** HTTP 429 with `Retry-After`: a rate limit (`@nestjs/throttler`) refused the call; `data.retryAfterMs`. */
  RateLimited: -32029,
  /**
   * HTTP 429 with `Retry-After`, as the draft SEP-3304 says it, with `rateLimits.errors:
   * 'sep-3304'`: `data.retryAfterMs`, and `data.limit` / `data.remaining` when the limiter said them.
   */
  RateLimitedSep3304: -32023,
  /** HTTP 503: large request bodies in flight exceed `maxInFlightRequestBytes`; retry later. */
  ServerBusy: -32000,
  /**
   * HTTP 404: the `Mcp-Session-Id` names no session of this caller (unknown, expired, deleted or
   * another caller's); start a new one with `initialize`. The code the SDK's transport uses.
   */
  SessionNotFound: -32001,
  /** A 2025-era client did not answer a server-to-client request within `sessions.answerTimeoutMs`. */
  InputRequestTimedOut: -32011,
  /** A 2025-era call still asked for input after `sessions.maxInputRounds` rounds. */
  InputRoundsExceeded: -32012,
  /** A 2025-era client answered a server-to-client request with an error. */
  InputRequestFailed: -32013,
  /** A 2025-era client resumed a request stream that was lost (its instance stopped, or the connection dropped). */
  RequestStreamLost: -32014,
} as const;
