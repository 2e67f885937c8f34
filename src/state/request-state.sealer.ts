import { Inject, Injectable } from '@nestjs/common';
import { LosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';
import type { McpJsonValue } from '../input/json-value';
import type { McpInputResponse } from '../input/mcp-input-response';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import { fromBase64Url, toBase64Url } from './base64url';
import { canonicalJson } from './canonical-json';
import type { RequestStateBinding } from './request-state-binding';
import { RequestStateProtectionError } from './request-state-protection.error';
import type { RequestStateProtector } from './request-state-protector.interface';

const FORMAT_VERSION = 1;
const MAX_HEADER_BYTES = 512;

/** The clear (but authenticated) header of a sealed state. */
export interface RequestStateHeader {
  readonly v: number;
  /** Issued at, ms since the epoch (first emission of the flow). */
  readonly iat: number;
  /** Expires at, ms since the epoch; kept across rounds. */
  readonly exp: number;
  /** Round number, from 1. */
  readonly r: number;
  /** JSON-RPC id of the request that emitted this state. */
  readonly rid: string | number;
}

/** A verified state, as opened. */
export interface OpenedRequestState {
  readonly header: RequestStateHeader;
  readonly value: McpJsonValue;
  /** The input request kinds asked for, by key, in the round that emitted this state. */
  readonly askedKinds: Readonly<Record<string, McpInputResponse['kind']>>;
}

interface SealedPayload {
  s: McpJsonValue;
  k: Record<string, McpInputResponse['kind']>;
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
    (typeof header.rid === 'string' || typeof header.rid === 'number')
  );
}

function parseStateJson(text: string): unknown {
  // Safe numbers come back as numbers, the rest as exact LosslessNumbers: equal by value either way.
  return parse(text, null, (token: string) =>
    isSafeNumber(token) ? Number(token) : new LosslessNumber(token),
  );
}

const canonicalBindings = new WeakMap<RequestStateBinding, string>();

/** `canonicalJson({ h: header, b: binding })`, with the binding's encoding computed once per request. */
function associatedData(canonicalHeader: string, binding: RequestStateBinding): Buffer {
  let canonicalBinding = canonicalBindings.get(binding);
  if (canonicalBinding === undefined) {
    canonicalBinding = canonicalJson(binding);
    canonicalBindings.set(binding, canonicalBinding);
  }
  return Buffer.from(`{"b":${canonicalBinding},"h":${canonicalHeader}}`, 'utf8');
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
   * Seals `value` for the next round. Continues `previous` (same expiry, next round) when given.
   * Throws {@link RequestStateProtectionError} when the state is too large, past the last round or
   * already expired.
   */
  async seal(
    value: McpJsonValue,
    askedKinds: Record<string, McpInputResponse['kind']>,
    binding: RequestStateBinding,
    requestId: string | number,
    previous: RequestStateHeader | undefined,
    now = Date.now(),
  ): Promise<string> {
    const limits = this.options.requestState;
    const round = (previous?.r ?? 0) + 1;
    if (round > limits.maxRounds) throw new RequestStateProtectionError('too_many_rounds');
    const header: RequestStateHeader = {
      v: FORMAT_VERSION,
      iat: previous?.iat ?? now,
      exp: previous?.exp ?? now + limits.maxLifetimeMs,
      r: round,
      rid: requestId,
    };
    if (header.exp <= now) throw new RequestStateProtectionError('expired');
    const payload: SealedPayload = { s: value, k: askedKinds };
    const plaintext = this.textEncoder.encode(stringify(payload) as string);
    if (plaintext.length > limits.maxDecodedBytes)
      throw new RequestStateProtectionError('too_large');
    const canonicalHeader = canonicalJson(header);
    let sealed: string;
    try {
      sealed = await this.protector.seal(plaintext, associatedData(canonicalHeader, binding));
    } catch (error) {
      throw error instanceof RequestStateProtectionError
        ? error
        : new RequestStateProtectionError('protector_failure');
    }
    const token = `${toBase64Url(Buffer.from(canonicalHeader, 'utf8'))}.${sealed}`;
    if (Buffer.byteLength(token) > limits.maxEncodedBytes)
      throw new RequestStateProtectionError('too_large');
    return token;
  }

  /** Verifies and opens a state for this request, or throws {@link RequestStateProtectionError}. */
  async open(
    token: string,
    binding: RequestStateBinding,
    requestId: string | number,
    now = Date.now(),
  ): Promise<OpenedRequestState> {
    const limits = this.options.requestState;
    if (Buffer.byteLength(token) > limits.maxEncodedBytes)
      throw new RequestStateProtectionError('too_large');
    const dot = token.indexOf('.');
    const headerBytes =
      dot > 0 && dot <= (MAX_HEADER_BYTES * 4) / 3 + 4
        ? fromBase64Url(token.slice(0, dot))
        : undefined;
    let header: unknown;
    try {
      header = headerBytes ? parseStateJson(headerBytes.toString('utf8')) : undefined;
    } catch {
      header = undefined;
    }
    // Only a canonically encoded header authenticates to the same associated data.
    // Bytes, not decoded text: invalid UTF-8 decodes to U+FFFD and would give a second spelling.
    const canonicalHeader = isHeader(header) ? canonicalJson(header) : undefined;
    if (
      !isHeader(header) ||
      canonicalHeader === undefined ||
      !headerBytes?.equals(Buffer.from(canonicalHeader, 'utf8'))
    ) {
      throw new RequestStateProtectionError('malformed');
    }
    let plaintext: Uint8Array;
    try {
      plaintext = await this.protector.open(
        token.slice(dot + 1),
        associatedData(canonicalHeader, binding),
      );
    } catch (error) {
      throw error instanceof RequestStateProtectionError
        ? error
        : new RequestStateProtectionError('protector_failure');
    }
    if (header.exp <= now) throw new RequestStateProtectionError('expired');
    if (header.r > limits.maxRounds) throw new RequestStateProtectionError('too_many_rounds');
    if (header.rid === requestId) throw new RequestStateProtectionError('replayed_request_id');
    if (plaintext.length > limits.maxDecodedBytes)
      throw new RequestStateProtectionError('too_large');
    const payload = parseStateJson(Buffer.from(plaintext).toString('utf8')) as SealedPayload;
    return { header, value: payload.s, askedKinds: payload.k ?? {} };
  }
}
