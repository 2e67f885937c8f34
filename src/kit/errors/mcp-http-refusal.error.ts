import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from './mcp-error-codes';

/**
 * What a `WWW-Authenticate: Bearer` challenge says (RFC 6750 §3), besides `resource_metadata`.
 * @internal
 */
export interface BearerChallenge {
  /** `insufficient_scope` for a step-up; `invalid_token` only for a token the module verified itself. */
  readonly error?: 'invalid_token' | 'insufficient_scope';
  /** Client-safe text for `error_description`. */
  readonly description?: string;
  /** The scopes the operation needs, for the `scope` parameter. */
  readonly scopes?: readonly string[];
}

/**
 * A JSON-RPC error whose HTTP answer is not 200: an authentication failure (401 with a Bearer
 * challenge), a step-up (403 `insufficient_scope`) or a rate limit (429 with `Retry-After`). The
 * transport writes the status and headers; the body is the JSON-RPC error, as for any other.
 * @internal
 */
export class McpHttpRefusal extends ProtocolError {
  constructor(
    readonly httpStatus: 401 | 403 | 429 | 503,
    code: number,
    message: string,
    data: unknown,
    readonly challenge: BearerChallenge | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(code, message, data);
  }
}

/** 401 -32001: no credential, or one the module or a guard did not accept. @internal */
export function unauthorizedRefusal(challenge: BearerChallenge = {}): McpHttpRefusal {
  return new McpHttpRefusal(
    401,
    McpErrorCode.Unauthorized,
    'Unauthorized',
    undefined,
    challenge,
    undefined,
  );
}

/** 403 -32003 with an `insufficient_scope` challenge naming every scope the operation needs. @internal */
export function insufficientScopeRefusal(scopes: readonly string[]): McpHttpRefusal {
  return new McpHttpRefusal(
    403,
    McpErrorCode.Forbidden,
    'Forbidden: insufficient scope',
    { requiredScopes: [...scopes] },
    { error: 'insufficient_scope', description: 'The operation needs more scopes', scopes },
    undefined,
  );
}

/** 429 -32029 with `Retry-After`; `data.retryAfterMs` says how long to wait. @internal */
export function rateLimitedRefusal(retryAfterMs: number): McpHttpRefusal {
  const ms = Math.max(0, Math.ceil(retryAfterMs));
  return new McpHttpRefusal(
    429,
    McpErrorCode.RateLimited,
    'Too many requests',
    { retryAfterMs: ms },
    undefined,
    Math.ceil(ms / 1000),
  );
}

/**
 * 503 -32000 with `Retry-After`: the bearer token could not be checked because the authorization
 * server did not answer (its keys, its introspection endpoint). @internal
 */
export function authorizationUnavailableRefusal(): McpHttpRefusal {
  return new McpHttpRefusal(
    503,
    McpErrorCode.ServerBusy,
    'Server busy: the authorization server is unavailable',
    undefined,
    undefined,
    5,
  );
}
