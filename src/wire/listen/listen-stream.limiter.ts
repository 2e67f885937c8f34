import type { IncomingMessage } from 'node:http';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import type { ListenLimits } from './listen-limits';
import { sha256Base64Url } from '../../kit/sha256';
import { MIN_RETRY_AFTER_MS } from '../../kit/fair-share';
import { FairShareLedger } from '../../kit/fair-share-ledger';

/** A stream slot frees when any stream ends, which nothing predicts: try again in a second. */
const LISTEN_RETRY_AFTER_MS = MIN_RETRY_AFTER_MS;

/** The JSON-RPC error a `subscriptions/listen` request gets instead of a stream. @internal */
export interface ListenRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  /** Names the option that was exceeded and its value; a slot refusal hints when to retry. */
  readonly data: { limit: string; max: number; retryAfterMs?: number };
}

/**
 * A stream slot taken, or the refusal. `release` frees the slot; later calls do nothing.
 * @internal
 */
export type ListenAdmission =
  | { readonly admitted: true; readonly release: () => void }
  | { readonly admitted: false; readonly refusal: ListenRefusal };

/**
 * Identifies the caller of a listen request from the HTTP request alone (no guard runs before a
 * stream opens): a SHA-256 digest of the `Authorization` header when there is one, so no
 * credential is kept and keys stay small, else the client address (`request.ip`, which honours
 * the framework's trust-proxy setting, else the socket's address). The header is not verified
 * here, so this is a fairness bound; `maxStreams` is the bound that holds against anyone.
 * @internal
 */
export function listenCallerKey(request: McpHttpRequest, raw: IncomingMessage): string {
  const authorization = raw.headers.authorization;
  if (typeof authorization === 'string' && authorization !== '') {
    return `authorization:${sha256Base64Url(authorization)}`;
  }
  const address = request.ip || raw.socket.remoteAddress;
  return `address:${address ?? 'unknown'}`;
}

/**
 * Counts the `subscriptions/listen` streams of this process, in total and per caller, and checks
 * a listen request's resource subscriptions, so that held streams cannot exhaust memory.
 * @internal
 */
export class ListenStreamLimiter {
  private readonly slots: FairShareLedger;

  constructor(private readonly limits: ListenLimits) {
    this.slots = new FairShareLedger({
      capacity: limits.maxStreams,
      perPartition: limits.maxStreamsPerCaller,
    });
  }

  /** Streams holding a slot now. */
  get openStreams(): number {
    return this.slots.total;
  }

  /** Callers holding at least one slot now. */
  get callers(): number {
    return this.slots.callers;
  }

  /**
   * The refusal of a listen message whose `resourceSubscriptions` exceed the limits. Any other
   * shape problem is left to the SDK, which validates the filter.
   */
  filterRefusal(message: unknown): ListenRefusal | undefined {
    const uris = (message as { params?: { notifications?: { resourceSubscriptions?: unknown } } })
      ?.params?.notifications?.resourceSubscriptions;
    if (!Array.isArray(uris)) return undefined;
    const { maxResourceSubscriptions, maxUriLength } = this.limits;
    if (uris.length > maxResourceSubscriptions) {
      return invalidParams('Invalid params: too many resource subscriptions', {
        limit: 'listen.maxResourceSubscriptions',
        max: maxResourceSubscriptions,
      });
    }
    if (uris.some((uri) => typeof uri === 'string' && uri.length > maxUriLength)) {
      return invalidParams('Invalid params: resource URI too long', {
        limit: 'listen.maxUriLength',
        max: maxUriLength,
      });
    }
    return undefined;
  }

  /**
   * Takes a stream slot for `caller`, unless the process is full or the caller holds its share:
   * its own limit, or less while the process is nearly full, so the callers holding the most
   * streams are refused first and one holding none still gets a stream while any slot is free.
   */
  acquire(caller: string): ListenAdmission {
    const taken = this.slots.take(caller, 1);
    if (taken.taken) return { admitted: true, release: taken.release };
    if (taken.refusal === 'store') {
      return refused(503, 'Too many listen streams', {
        limit: 'listen.maxStreams',
        max: this.limits.maxStreams,
        retryAfterMs: LISTEN_RETRY_AFTER_MS,
      });
    }
    return refused(429, 'Too many listen streams for this caller', {
      limit: 'listen.maxStreamsPerCaller',
      max:
        taken.refusal === 'share' ? this.slots.callerLimitNow() : this.limits.maxStreamsPerCaller,
      retryAfterMs: LISTEN_RETRY_AFTER_MS,
    });
  }
}

function invalidParams(message: string, data: ListenRefusal['data']): ListenRefusal {
  return { status: 400, code: McpErrorCode.InvalidParams, message, data };
}

function refused(status: number, message: string, data: ListenRefusal['data']): ListenAdmission {
  return {
    admitted: false,
    refusal: { status, code: McpErrorCode.InvalidRequest, message, data },
  };
}
