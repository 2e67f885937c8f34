import { LosslessNumber, isSafeNumber, parse, stringify } from 'lossless-json';
import type { McpJsonValue } from '../../kit/json-value';
import type { McpInputResponse } from '../../input/mcp-input-response';
import { isPromiseLike, type MaybePromise } from '../../kit/maybe-promise';
import { requestIdKey } from './request-id-key';
import type { RequestStateBinding } from './request-state-binding';
import { newFlowId, type SealedFlow } from './sealed-flow';
import type { RequestStateLimits } from './request-state-limits';
import { bindingDigest, differingField, fieldDigests } from './request-state-binding-digest';
import {
  EARLIER_FORMAT_HEADER,
  expiryOf,
  fitsBounds,
  FORMAT_VERSION,
  headerText,
  parseHeader,
  TRACEPARENT,
  type RequestStateHeader,
} from './request-state-header';
import {
  asRequestStateProtectionError,
  RequestStateProtectionError,
  type RequestStateFailureDetail,
  type RequestStateFailureReason,
} from './request-state-protection.error';
import { type RequestStateProtector } from './request-state-protector.interface';
import { portInstanceOnceFilled } from '../../options/forwarding-port';

/**
 * How far in the future a state's issue time may be (clocks of a fleet differ a little).
 * @internal
 */
export const CLOCK_SKEW_TOLERANCE_MS = 5_000;

/** A verified state, as opened. @internal */
export interface OpenedRequestState {
  readonly header: RequestStateHeader;
  /** The operation's own JSON; absent when only a replay ledger was sealed. */
  readonly value: McpJsonValue | undefined;
  /** The input request kinds asked for, by key, in the round that emitted this state. */
  readonly askedKinds: Readonly<Record<string, McpInputResponse['kind']>>;
  /** The replay ledger of a `replay: true` operation, as sealed (`src/request-state/replay/replay-ledger.ts`). */
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

/** The header is the associated data; the binding is checked inside the authenticated payload. */
function associatedData(header: string): Buffer {
  return Buffer.from(header, 'latin1');
}

/**
 * Seals and opens framework-protected request state: a header (issue and expiry time, round,
 * emitting request id) and the application's JSON, bound through the protector's associated data
 * to the endpoint, protocol version, method, target, caller partition and stable parameters.
 * @internal
 */
export class RequestStateSealer {
  /** The protector itself, not its port's forwarding object: it opens a state on every round. */
  private readonly protector: () => RequestStateProtector;

  constructor(
    private readonly limits: RequestStateLimits,
    protector: RequestStateProtector,
  ) {
    this.protector = portInstanceOnceFilled(protector);
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
      sealed = await this.protector().seal(plaintext, associatedData(headerSegment));
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
      plaintext = this.protector().open(token.slice(dot + 1), associatedData(headerSegment));
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
