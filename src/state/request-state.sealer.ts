import { Inject, Injectable } from '@nestjs/common';
import { LosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';
import type { McpJsonValue } from '../input/json-value';
import type { McpInputResponse } from '../input/mcp-input-response';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import { isPromiseLike, type MaybePromise } from '../protocol/maybe-promise';
import { fromBase64Url, toBase64Url } from './base64url';
import { canonicalJson } from './canonical-json';
import type { RequestStateBinding } from './request-state-binding';
import { REQUEST_STATE_LIMIT_BOUNDS, type RequestStateLimits } from './request-state-limits';
import { RequestStateProtectionError } from './request-state-protection.error';
import type { RequestStateProtector } from './request-state-protector.interface';
import { sha256Base64Url } from './sha256';

// 2: `rid` is a digest of the emitting request's id (1 carried the id itself, so a long id made
// a header too large to open).
const FORMAT_VERSION = 2;
/** The one bound on the clear header: sealing refuses to exceed it, opening refuses anything over it. */
const MAX_HEADER_BYTES = 512;
const MAX_HEADER_SEGMENT_CHARS = Math.ceil((MAX_HEADER_BYTES * 4) / 3);
/** How far in the future a state's issue time may be (clocks of a fleet differ a little). */
export const CLOCK_SKEW_TOLERANCE_MS = 5_000;
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

/** The clear (but authenticated) header of a sealed state. */
export interface RequestStateHeader {
  readonly v: number;
  /** Issued at, ms since the epoch (first emission of the flow). */
  readonly iat: number;
  /** Expires at, ms since the epoch; kept across rounds (or brought forward by a stricter instance). */
  readonly exp: number;
  /** Round number, from 1. */
  readonly r: number;
  /** {@link requestIdDigest} of the JSON-RPC id of the request that emitted this state. */
  readonly rid: string;
}

/** A verified state, as opened. */
export interface OpenedRequestState {
  readonly header: RequestStateHeader;
  /** The operation's own JSON; absent when only a replay ledger was sealed. */
  readonly value: McpJsonValue | undefined;
  /** The input request kinds asked for, by key, in the round that emitted this state. */
  readonly askedKinds: Readonly<Record<string, McpInputResponse['kind']>>;
  /** The replay ledger of a `replay: true` operation, as sealed (`src/replay/replay-ledger.ts`). */
  readonly replayLedger: string | undefined;
}

interface SealedPayload {
  s: McpJsonValue | undefined;
  k: Record<string, McpInputResponse['kind']>;
  r?: string;
}

/**
 * SHA-256 (base64url, 43 characters) of a JSON-RPC id in canonical JSON: fixed length whatever the
 * id, `1`, `1.0` and `1e0` alike, `1` and `"1"` different.
 */
export function requestIdDigest(id: string | number): string {
  // JSON has no spelling for a non-finite number; keep one anyway, distinct from every string.
  const canonical = typeof id === 'number' && !Number.isFinite(id) ? String(id) : canonicalJson(id);
  return sha256Base64Url(canonical);
}

function isHeader(value: unknown): value is RequestStateHeader {
  const header = value as Partial<RequestStateHeader> | null;
  return (
    header !== null &&
    typeof header === 'object' &&
    header.v === FORMAT_VERSION &&
    Number.isSafeInteger(header.iat) &&
    Number.isSafeInteger(header.exp) &&
    Number.isSafeInteger(header.r) &&
    (header.r ?? 0) >= 1 &&
    (header.r ?? 0) <= REQUEST_STATE_LIMIT_BOUNDS.maxRounds.max &&
    // A sealer never issues a state with a lifetime outside the option's bounds.
    (header.exp ?? 0) > (header.iat ?? 0) &&
    (header.exp ?? 0) - (header.iat ?? 0) <= REQUEST_STATE_LIMIT_BOUNDS.maxLifetimeMs.max &&
    typeof header.rid === 'string' &&
    DIGEST.test(header.rid)
  );
}

/** The one header-size check, for the header segment (base64url) when sealing and when opening. */
function headerSegmentFits(length: number): boolean {
  return length > 0 && length <= MAX_HEADER_SEGMENT_CHARS;
}

/** When a state expires here: its own expiry, or earlier if this instance's lifetime is shorter. */
function expiryOf(header: RequestStateHeader, limits: RequestStateLimits): number {
  return Math.min(header.exp, header.iat + limits.maxLifetimeMs);
}

/** A number token in compact JSON follows `:`, `,` or `[` (this finds some inside strings too). */
const MAY_HOLD_NUMBERS = /[:,[]-?\d/;

function parseStateJson(text: string): unknown {
  // Without numbers the native parse is exact, and much cheaper.
  if (!MAY_HOLD_NUMBERS.test(text)) return JSON.parse(text) as unknown;
  // Safe numbers come back as numbers, the rest as exact LosslessNumbers: equal by value either way.
  return parse(text, null, (token: string) =>
    isSafeNumber(token) ? Number(token) : new LosslessNumber(token),
  );
}

/**
 * `canonicalJson(header)` for a header that passed {@link isHeader}: its keys in canonical order,
 * safe integers and a digest (nothing to escape) — spelled out, as it is read on every retry.
 */
function canonicalHeaderJson(header: RequestStateHeader): string {
  return `{"exp":${canonicalJson(header.exp)},"iat":${canonicalJson(header.iat)},"r":${canonicalJson(header.r)},"rid":"${header.rid}","v":${canonicalJson(header.v)}}`;
}

/** `canonicalJson(binding)`: its six strings in canonical key order. */
function canonicalBindingJson(binding: RequestStateBinding): string {
  const { endpoint, method, partition, paramsDigest, protocolVersion, target } = binding;
  return `{"endpoint":${JSON.stringify(endpoint)},"method":${JSON.stringify(method)},"paramsDigest":${JSON.stringify(paramsDigest)},"partition":${JSON.stringify(partition)},"protocolVersion":${JSON.stringify(protocolVersion)},"target":${JSON.stringify(target)}}`;
}

const canonicalBindings = new WeakMap<RequestStateBinding, string>();

/** `canonicalJson({ h: header, b: binding })`, with the binding's encoding computed once per request. */
function associatedData(canonicalHeader: string, binding: RequestStateBinding): Buffer {
  let canonicalBinding = canonicalBindings.get(binding);
  if (canonicalBinding === undefined) {
    canonicalBinding = canonicalBindingJson(binding);
    canonicalBindings.set(binding, canonicalBinding);
  }
  return Buffer.from(`{"b":${canonicalBinding},"h":${canonicalHeader}}`, 'utf8');
}

function parseHeaderJson(text: string): unknown {
  // A header is small integers and a digest; any other number fails the canonical check below.
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A protector's failure as ours: its own reason, or `protector_failure` for anything else. */
function asProtectionError(error: unknown): RequestStateProtectionError {
  return error instanceof RequestStateProtectionError
    ? error
    : new RequestStateProtectionError('protector_failure');
}

/**
 * Seals and opens framework-protected request state: a header (issue and expiry time, round,
 * emitting request id) and the application's JSON, bound through the protector's associated data
 * to the endpoint, protocol version, method, target, caller partition and stable parameters.
 */
@Injectable()
export class RequestStateSealer {
  private readonly textEncoder = new TextEncoder();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly protector: RequestStateProtector,
  ) {}

  /**
   * Seals `value` for the next round. Continues `previous` (same issue time and expiry — brought
   * forward if this instance's lifetime is shorter — next round) when given. Throws
   * {@link RequestStateProtectionError} when the state is too large, past the last round or already
   * expired: it never returns a state this instance could not open.
   */
  async seal(
    value: McpJsonValue | undefined,
    askedKinds: Record<string, McpInputResponse['kind']>,
    binding: RequestStateBinding,
    requestId: string | number,
    previous: RequestStateHeader | undefined,
    now = Date.now(),
    replayLedger?: string,
  ): Promise<string> {
    const limits = this.options.requestState;
    const round = (previous?.r ?? 0) + 1;
    if (round > limits.maxRounds) throw new RequestStateProtectionError('too_many_rounds');
    const header: RequestStateHeader = {
      v: FORMAT_VERSION,
      iat: previous?.iat ?? now,
      exp: previous ? expiryOf(previous, limits) : now + limits.maxLifetimeMs,
      r: round,
      rid: requestIdDigest(requestId),
    };
    if (header.exp <= now) throw new RequestStateProtectionError('expired');
    const canonicalHeader = canonicalHeaderJson(header);
    const headerSegment = toBase64Url(Buffer.from(canonicalHeader, 'utf8'));
    if (!headerSegmentFits(headerSegment.length))
      throw new RequestStateProtectionError('too_large');
    const payload: SealedPayload = { s: value, k: askedKinds, r: replayLedger };
    const plaintext = this.textEncoder.encode(stringify(payload) as string);
    if (plaintext.length > limits.maxDecodedBytes)
      throw new RequestStateProtectionError('too_large');
    let sealed: string;
    try {
      sealed = await this.protector.seal(plaintext, associatedData(canonicalHeader, binding));
    } catch (error) {
      throw asProtectionError(error);
    }
    const token = `${headerSegment}.${sealed}`;
    if (Buffer.byteLength(token) > limits.maxEncodedBytes)
      throw new RequestStateProtectionError('too_large');
    return token;
  }

  /** {@link openNow}, always answered through a promise. */
  async open(
    token: string,
    binding: RequestStateBinding,
    requestId: string | number,
    now = Date.now(),
  ): Promise<OpenedRequestState> {
    return this.openNow(token, binding, requestId, now);
  }

  /**
   * Verifies and opens a state for this request, or throws {@link RequestStateProtectionError}
   * (synchronously, or as a rejection when the protector is asynchronous). The state's own expiry
   * and round are checked, and so are this instance's current limits. Synchronous with a
   * synchronous protector (the default), as it runs on every retry.
   */
  openNow(
    token: string,
    binding: RequestStateBinding,
    requestId: string | number,
    now = Date.now(),
  ): MaybePromise<OpenedRequestState> {
    const limits = this.options.requestState;
    if (Buffer.byteLength(token) > limits.maxEncodedBytes)
      throw new RequestStateProtectionError('too_large');
    const dot = token.indexOf('.');
    const headerBytes = headerSegmentFits(dot) ? fromBase64Url(token.slice(0, dot)) : undefined;
    const header = headerBytes ? parseHeaderJson(headerBytes.toString('utf8')) : undefined;
    // Only a canonically encoded header authenticates to the same associated data.
    // Bytes, not decoded text: invalid UTF-8 decodes to U+FFFD and would give a second spelling.
    const canonicalHeader = isHeader(header) ? canonicalHeaderJson(header) : undefined;
    if (
      !isHeader(header) ||
      canonicalHeader === undefined ||
      !headerBytes?.equals(Buffer.from(canonicalHeader, 'utf8'))
    ) {
      throw new RequestStateProtectionError('malformed');
    }
    let plaintext: MaybePromise<Uint8Array>;
    try {
      plaintext = this.protector.open(
        token.slice(dot + 1),
        associatedData(canonicalHeader, binding),
      );
    } catch (error) {
      throw asProtectionError(error);
    }
    const opened = (bytes: Uint8Array) => this.verify(header, bytes, requestId, now);
    return isPromiseLike(plaintext)
      ? plaintext.then(opened, (error: unknown) => {
          throw asProtectionError(error);
        })
      : opened(plaintext);
  }

  /** The checks of an authentic state against this request and this instance's limits. */
  private verify(
    header: RequestStateHeader,
    plaintext: Uint8Array,
    requestId: string | number,
    now: number,
  ): OpenedRequestState {
    const limits = this.options.requestState;
    // Issued in the future beyond clock skew: no instance of ours did that with a sane clock.
    if (header.iat > now + CLOCK_SKEW_TOLERANCE_MS)
      throw new RequestStateProtectionError('malformed');
    if (expiryOf(header, limits) <= now) throw new RequestStateProtectionError('expired');
    if (header.r > limits.maxRounds) throw new RequestStateProtectionError('too_many_rounds');
    if (header.rid === requestIdDigest(requestId))
      throw new RequestStateProtectionError('replayed_request_id');
    if (plaintext.length > limits.maxDecodedBytes)
      throw new RequestStateProtectionError('too_large');
    const payload = parseStateJson(
      Buffer.from(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength).toString('utf8'),
    ) as SealedPayload;
    if (payload.r !== undefined && typeof payload.r !== 'string')
      throw new RequestStateProtectionError('malformed');
    return { header, value: payload.s, askedKinds: payload.k ?? {}, replayLedger: payload.r };
  }
}
