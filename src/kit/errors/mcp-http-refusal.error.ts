import { ProtocolError } from '@modelcontextprotocol/server';
import { MIN_RETRY_AFTER_MS } from '../fair-share';
import { McpErrorCode } from './mcp-error-codes';
import type { RateLimitFacts } from './rate-limit-facts';

/**
 * What a `WWW-Authenticate` challenge says (RFC 6750 §3, RFC 9449 §7.1), besides
 * `resource_metadata` and `algs`: the `Bearer` one, and the `DPoP` one where DPoP is accepted.
 * @internal
 */
export interface BearerChallenge {
  /**
   * `insufficient_scope` for a step-up; `invalid_token`, `invalid_dpop_proof` and `use_dpop_nonce`
   * only for a credential the module verified itself.
   */
  readonly error?: 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';
  /** Client-safe text for `error_description`. */
  readonly description?: string;
  /** The scopes the operation needs, for the `scope` parameter. */
  readonly scopes?: readonly string[];
  /** The challenge that carries the error; default: the scheme the request used. */
  readonly scheme?: 'Bearer' | 'DPoP';
  /** A fresh server nonce, sent as `DPoP-Nonce` (RFC 9449 §9). */
  readonly dpopNonce?: string;
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
    /** More headers of the answer (`RateLimit-Limit`, `RateLimit-Remaining`). */
    readonly headers: Readonly<Record<string, string>> = {},
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

/**
 * How a rate limit's refusal is answered: `-32029` (the default: -32029 `Too many requests`) or
 * `sep-3304` (the draft: -32023 `Rate limited`, with `limit` and `remaining` in `data` and in the
 * `RateLimit-Limit` / `RateLimit-Remaining` headers when the limiter said them). Both are HTTP 429
 * with `Retry-After` and `data.retryAfterMs`.
 * @internal
 */
export type RateLimitErrorFormat = '-32029' | 'sep-3304';

/** 429 with `Retry-After`; `data.retryAfterMs` says how long to wait. @internal */
export function rateLimitedRefusal(
  retryAfterMs: number,
  format: RateLimitErrorFormat = '-32029',
  facts?: RateLimitFacts,
): McpHttpRefusal {
  const ms = Math.max(0, Math.ceil(retryAfterMs));
  if (format === '-32029')
    return new McpHttpRefusal(
      429,
      McpErrorCode.RateLimited,
      'Too many requests',
      { retryAfterMs: ms },
      undefined,
      Math.ceil(ms / 1000),
    );
  return new McpHttpRefusal(
    429,
    McpErrorCode.RateLimitedSep3304,
    'Rate limited',
    { retryAfterMs: ms, ...(facts && { limit: facts.limit, remaining: facts.remaining }) },
    undefined,
    Math.ceil(ms / 1000),
    facts
      ? { 'ratelimit-limit': String(facts.limit), 'ratelimit-remaining': String(facts.remaining) }
      : {},
  );
}

/**
 * 503 -32000 with `Retry-After` and `data.retryAfterMs`: a DPoP proof could not be recorded as used,
 * so it is not accepted and nothing ran — its replay cache is unreachable (`Server busy: the store
 * is unavailable`, as every store outage answers), or has no room for it now (`Server busy: too
 * many DPoP proofs`, `… for this caller`); the same request may be sent again with a new proof.
 * @internal
 */
export function dpopReplayUnavailableRefusal(
  cause: 'unavailable' | 'full' | 'share',
  retryAfterMs: number,
): McpHttpRefusal {
  const ms = Math.max(MIN_RETRY_AFTER_MS, Math.ceil(retryAfterMs));
  const message =
    cause === 'unavailable'
      ? 'Server busy: the store is unavailable'
      : `Server busy: too many DPoP proofs${cause === 'share' ? ' for this caller' : ''}`;
  return new McpHttpRefusal(
    503,
    McpErrorCode.ServerBusy,
    message,
    { retryAfterMs: ms },
    undefined,
    Math.ceil(ms / 1000),
  );
}

/** When a client is told to try again after the authorization server did not answer. */
const AUTHORIZATION_RETRY_AFTER_MS = 5_000;

/**
 * 503 -32000 with `Retry-After` and `data.retryAfterMs`, as every busy answer has: the bearer
 * token could not be checked because the authorization server did not answer (its keys, its
 * introspection endpoint). @internal
 */
export function authorizationUnavailableRefusal(): McpHttpRefusal {
  return new McpHttpRefusal(
    503,
    McpErrorCode.ServerBusy,
    'Server busy: the authorization server is unavailable',
    { retryAfterMs: AUTHORIZATION_RETRY_AFTER_MS },
    undefined,
    AUTHORIZATION_RETRY_AFTER_MS / 1000,
  );
}
