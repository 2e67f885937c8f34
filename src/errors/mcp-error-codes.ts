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
  /** HTTP 503: large request bodies in flight exceed `maxInFlightRequestBytes`; retry later. */
  ServerBusy: -32000,
} as const;
