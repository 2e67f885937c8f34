import { LosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';
import type { McpJsonValue } from '../util/json-value';
import type { McpInputResponse } from '../input/mcp-input-response';
import { isPromiseLike, type MaybePromise } from '../util/maybe-promise';
import { canonicalJson } from '../util/canonical-json';
import {
  BINDING_FIELDS,
  type RequestStateBinding,
  type RequestStateBindingField,
} from './request-state-binding';
import { newFlowId, type SealedFlow } from './sealed-flow';
import { REQUEST_STATE_LIMIT_BOUNDS, type RequestStateLimits } from './request-state-limits';
import {
  asRequestStateProtectionError,
  RequestStateProtectionError,
  type RequestStateFailureDetail,
  type RequestStateFailureReason,
} from './request-state-protection.error';
import {
  REQUEST_STATE_PROTECTOR_PORT,
  type RequestStateProtector,
} from './request-state-protector.interface';
import { McpPorts } from '../ports/mcp-ports.service';
import { sha256Base64Url } from '../util/sha256';

// 4: the binding checked inside the sealed payload (a digest of it, and short digests per field that
// name the one that differs), the flow id and the first round's trace context sealed with it; only
// the header is associated data. 3 bound the binding as associated data, so a refusal could not say
// which field differed; 2 spelled the header as base64url canonical JSON with a digest of the id; 1
// carried the id itself in the header, so a long id made a header too large to open.
const FORMAT_VERSION = 4;
/**
 * The clear header, in its one spelling: the version, then issue time, expiry and round as
 * decimal integers without leading zeros (safe integers at most 16 digits, rounds at most 4).
 */
const HEADER =
  /^4_(0|[1-9][0-9]{0,15})_(0|[1-9][0-9]{0,15})_([1-9][0-9]{0,3})(?:_([0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}))?$/;
/** A W3C `traceparent` of version 00, as a traced first round spells its span context. */
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
/** A header of format 3, sealed by an earlier build: refused as malformed, with that said in the log. */
const EARLIER_FORMAT_HEADER = /^[1-3]_/;
/** How far in the future a state's issue time may be (clocks of a fleet differ a little). */
export const CLOCK_SKEW_TOLERANCE_MS = 5_000;
/** Ids whose canonical JSON is longer are bound by a digest, so a state's size does not follow the id's. */
const MAX_CLEAR_REQUEST_ID_CHARS = 64;

/** The clear (but authenticated) header of a sealed state. */
export interface RequestStateHeader {
  readonly v: number;
  /** Issued at, ms since the epoch (first emission of the flow). */
  readonly iat: number;
  /** Expires at, ms since the epoch; kept across rounds (or brought forward by a stricter instance). */
  readonly exp: number;
  /** Round number, from 1. */
  readonly r: number;
  /**
   * The span context of the flow's first traced round (`traceparent` spelling), in clear so a later
   * round can be parented under it before the state is opened (a client learns nothing secret: it
   * is the server's own span, and a client may send any trace context it likes anyway).
   */
  readonly trace?: string;
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
  /** The flow the state continues: its id and the first round's trace context. */
  readonly flow: SealedFlow;
}

interface SealedPayload {
  /** {@link requestIdKey} of the request that emitted the state. */
  i: string;
  s: McpJsonValue | undefined;
  k: Record<string, McpInputResponse['kind']>;
  r?: string;
  /** Flow id. */
  f: string;
  /** SHA-256 of the canonical binding: what the state is bound to. */
  b: string;
  /** Short digests of each binding field, in {@link BINDING_FIELDS} order: which one differs. */
  d: string;
}

/**
 * A JSON-RPC id as JSON-RPC compares ids: its canonical JSON (`1`, `1.0` and `1e0` alike, `1` and
 * `"1"` different), or `#` and its SHA-256 when that is longer than 64 characters.
 */
export function requestIdKey(id: string | number): string {
  // JSON has no spelling for a non-finite number; keep one anyway, distinct from every string.
  const canonical = typeof id === 'number' && !Number.isFinite(id) ? String(id) : canonicalJson(id);
  return canonical.length <= MAX_CLEAR_REQUEST_ID_CHARS
    ? canonical
    : `#${sha256Base64Url(canonical)}`;
}

/**
 * The clear header a state claims, unverified: for naming a retry's round and parenting its span
 * under the flow's first round before the state is opened (see {@link RequestStateHeader.trace}).
 */
export function claimedHeader(token: unknown): RequestStateHeader | undefined {
  if (typeof token !== 'string') return undefined;
  const dot = token.indexOf('.');
  return dot > 0 && dot <= MAX_HEADER_CHARS ? parseHeader(token.slice(0, dot)) : undefined;
}

/** The longest header this format spells: four numbers and a trace context. */
const MAX_HEADER_CHARS = 2 + 16 + 1 + 16 + 1 + 4 + 1 + 51;

/** The header in its one spelling (see {@link HEADER}). */
function headerText(header: RequestStateHeader): string {
  const trace = header.trace === undefined ? '' : `_${header.trace.slice(3)}`;
  return `${FORMAT_VERSION}_${header.iat}_${header.exp}_${header.r}${trace}`;
}

/** The header a segment spells, when it is one this format can hold; anything else is malformed. */
function parseHeader(segment: string): RequestStateHeader | undefined {
  const match = HEADER.exec(segment);
  if (!match) return undefined;
  const iat = Number(match[1]);
  const exp = Number(match[2]);
  const r = Number(match[3]);
  // Two literals rather than a spread of an optional member: this runs on every retry.
  const header: RequestStateHeader =
    match[4] === undefined
      ? { v: FORMAT_VERSION, iat, exp, r }
      : { v: FORMAT_VERSION, iat, exp, r, trace: `00-${match[4]}` };
  return fitsBounds(header) ? header : undefined;
}

/** What a sealer could have issued: safe integers, a lifetime and round within the options' bounds. */
function fitsBounds(header: RequestStateHeader): boolean {
  return (
    Number.isSafeInteger(header.iat) &&
    Number.isSafeInteger(header.exp) &&
    header.r >= 1 &&
    header.r <= REQUEST_STATE_LIMIT_BOUNDS.maxRounds.max &&
    header.exp > header.iat &&
    header.exp - header.iat <= REQUEST_STATE_LIMIT_BOUNDS.maxLifetimeMs.max
  );
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
  // lossless-json's parser, not the native parse with a reviver: on Node 20 a reviver (every value
  // handed to JavaScript) costs more than this parser does, 1.6–2.4× on a 2.5 KB state of numbers.
  return parse(text, null, (token: string) =>
    isSafeNumber(token) ? Number(token) : new LosslessNumber(token),
  );
}

/**
 * The binding as JSON in canonical key order: five strings and the stable params, which are
 * canonical JSON already (and self-delimiting, so they go in as they are).
 */
function canonicalBindingJson(binding: RequestStateBinding): string {
  const { endpoint, method, partition, protocolVersion, stableParams, target } = binding;
  return `{"endpoint":${JSON.stringify(endpoint)},"method":${JSON.stringify(method)},"params":${stableParams},"partition":${JSON.stringify(partition)},"protocolVersion":${JSON.stringify(protocolVersion)},"target":${JSON.stringify(target)}}`;
}

/** The header is the associated data; the binding is checked inside the authenticated payload. */
function associatedData(header: string): Buffer {
  return Buffer.from(header, 'latin1');
}

function bindingDigest(binding: RequestStateBinding): string {
  return sha256Base64Url(canonicalBindingJson(binding));
}

/** Characters of each field's digest: enough to tell which field changed, not to bind it. */
const FIELD_DIGEST_CHARS = 8;

function fieldValue(binding: RequestStateBinding, field: RequestStateBindingField): string {
  switch (field) {
    case 'endpoint':
      return binding.endpoint;
    case 'protocol_version':
      return binding.protocolVersion;
    case 'operation':
      return `${binding.method} ${binding.target}`;
    case 'caller':
      return binding.partition;
    case 'arguments':
      return binding.stableArguments();
    case 'params':
      return binding.stableParams;
  }
}

function fieldDigests(binding: RequestStateBinding): string {
  let digests = '';
  for (const field of BINDING_FIELDS)
    digests += sha256Base64Url(fieldValue(binding, field)).slice(0, FIELD_DIGEST_CHARS);
  return digests;
}

/** The first field whose digest differs; `params` when none does (another bound member changed). */
function differingField(sealed: string, binding: RequestStateBinding): RequestStateBindingField {
  for (const [index, field] of BINDING_FIELDS.entries()) {
    const at = index * FIELD_DIGEST_CHARS;
    const digest = sha256Base64Url(fieldValue(binding, field)).slice(0, FIELD_DIGEST_CHARS);
    if (sealed.slice(at, at + FIELD_DIGEST_CHARS) !== digest) return field;
  }
  return 'params';
}

/**
 * Seals and opens framework-protected request state: a header (issue and expiry time, round,
 * emitting request id) and the application's JSON, bound through the protector's associated data
 * to the endpoint, protocol version, method, target, caller partition and stable parameters.
 */
export class RequestStateSealer {
  constructor(
    private readonly limits: RequestStateLimits,
    /** The protector, or where to find it once the module's ports are filled. */
    private readonly protection: RequestStateProtector | McpPorts,
  ) {}

  private get protector(): RequestStateProtector {
    const protection = this.protection;
    return protection instanceof McpPorts
      ? protection.get(REQUEST_STATE_PROTECTOR_PORT)
      : protection;
  }

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
    flow: SealedFlow = { id: newFlowId() },
  ): Promise<string> {
    const limits = this.limits;
    const round = (previous?.r ?? 0) + 1;
    if (round > limits.maxRounds) throw new RequestStateProtectionError('too_many_rounds');
    // The first traced round's span context stays the flow's.
    const trace = previous?.trace ?? flow.trace;
    const header: RequestStateHeader = {
      v: FORMAT_VERSION,
      iat: previous?.iat ?? now,
      exp: previous ? expiryOf(previous, limits) : now + limits.maxLifetimeMs,
      r: round,
      ...(trace !== undefined && TRACEPARENT.test(trace) && { trace }),
    };
    if (header.exp <= now) throw new RequestStateProtectionError('expired');
    if (!fitsBounds(header)) throw new RequestStateProtectionError('too_large');
    const headerSegment = headerText(header);
    const payload: SealedPayload = {
      i: requestIdKey(requestId),
      s: value,
      k: askedKinds,
      r: replayLedger,
      f: flow.id,
      b: bindingDigest(binding),
      d: fieldDigests(binding),
    };
    const plaintext = Buffer.from(stringify(payload) as string, 'utf8');
    if (plaintext.length > limits.maxDecodedBytes)
      throw new RequestStateProtectionError('too_large');
    let sealed: string;
    try {
      sealed = await this.protector.seal(plaintext, associatedData(headerSegment));
    } catch (error) {
      throw asRequestStateProtectionError(error);
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
    const limits = this.limits;
    if (Buffer.byteLength(token) > limits.maxEncodedBytes)
      throw new RequestStateProtectionError('too_large');
    const dot = token.indexOf('.');
    const headerSegment = token.slice(0, dot);
    const header = dot > 0 ? parseHeader(headerSegment) : undefined;
    if (!header)
      throw new RequestStateProtectionError(
        'malformed',
        EARLIER_FORMAT_HEADER.test(headerSegment) ? 'earlier_format' : undefined,
      );
    let plaintext: MaybePromise<Uint8Array>;
    try {
      plaintext = this.protector.open(token.slice(dot + 1), associatedData(headerSegment));
    } catch (error) {
      throw asRequestStateProtectionError(error);
    }
    const opened = (bytes: Uint8Array) => this.verify(header, bytes, binding, requestId, now);
    return isPromiseLike(plaintext)
      ? plaintext.then(opened, (error: unknown) => {
          throw asRequestStateProtectionError(error);
        })
      : opened(plaintext);
  }

  /** The checks of an authentic state against this request and this instance's limits. */
  private verify(
    header: RequestStateHeader,
    plaintext: Uint8Array,
    binding: RequestStateBinding,
    requestId: string | number,
    now: number,
  ): OpenedRequestState {
    const limits = this.limits;
    if (plaintext.length > limits.maxDecodedBytes)
      throw new RequestStateProtectionError('too_large');
    const payload = parseStateJson(
      Buffer.from(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength).toString('utf8'),
    ) as SealedPayload;
    if (
      typeof payload.i !== 'string' ||
      (payload.r !== undefined && typeof payload.r !== 'string') ||
      typeof payload.f !== 'string' ||
      typeof payload.b !== 'string' ||
      typeof payload.d !== 'string'
    )
      throw new RequestStateProtectionError('malformed');
    const flow: SealedFlow =
      header.trace === undefined ? { id: payload.f } : { id: payload.f, trace: header.trace };
    // Authentic from here: a refusal can name the flow it refused.
    const refuse = (reason: RequestStateFailureReason, detail?: RequestStateFailureDetail) =>
      new RequestStateProtectionError(reason, detail, flow);
    // Issued in the future beyond clock skew: no instance of ours did that with a sane clock.
    if (header.iat > now + CLOCK_SKEW_TOLERANCE_MS) throw refuse('malformed', 'issued_in_future');
    if (expiryOf(header, limits) <= now) throw refuse('expired');
    if (header.r > limits.maxRounds) throw refuse('too_many_rounds');
    if (payload.b !== bindingDigest(binding))
      throw refuse('binding_mismatch', differingField(payload.d, binding));
    if (payload.i === requestIdKey(requestId)) throw refuse('replayed_request_id');
    return {
      header,
      value: payload.s,
      askedKinds: payload.k ?? {},
      replayLedger: payload.r,
      flow,
    };
  }
}
