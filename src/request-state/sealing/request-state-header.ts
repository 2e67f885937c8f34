import { REQUEST_STATE_LIMIT_BOUNDS, type RequestStateLimits } from './request-state-limits';

/** @internal */
// 4: the binding checked inside the sealed payload (a digest of it, and short digests per field that
// name the one that differs), the flow id and the first round's trace context sealed with it; only
// the header is associated data. 3 bound the binding as associated data, so a refusal could not say
// which field differed; 2 spelled the header as base64url canonical JSON with a digest of the id; 1
// carried the id itself in the header, so a long id made a header too large to open.
export const FORMAT_VERSION = 4;
/**
 * The clear header, in its one spelling: the version, then issue time, expiry and round as
 * decimal integers without leading zeros (safe integers at most 16 digits, rounds at most 4).
 */
const HEADER =
  /^4_(0|[1-9][0-9]{0,15})_(0|[1-9][0-9]{0,15})_([1-9][0-9]{0,3})(?:_([0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}))?$/;
/** A W3C `traceparent` of version 00, as a traced first round spells its span context. @internal */
export const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
/**
 * A header of format 3, sealed by an earlier build: refused as malformed, with that said in the
 * log.
 * @internal
 */
export const EARLIER_FORMAT_HEADER = /^[1-3]_/;
/** The clear (but authenticated) header of a sealed state. @internal */
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

/**
 * The clear header a state claims, unverified: for naming a retry's round and parenting its span
 * under the flow's first round before the state is opened (see {@link RequestStateHeader.trace}).
 * @internal
 */
export function claimedHeader(token: unknown): RequestStateHeader | undefined {
  if (typeof token !== 'string') return undefined;
  const dot = token.indexOf('.');
  return dot > 0 && dot <= MAX_HEADER_CHARS ? parseHeader(token.slice(0, dot)) : undefined;
}

/** The longest header this format spells: four numbers and a trace context. */
const MAX_HEADER_CHARS = 2 + 16 + 1 + 16 + 1 + 4 + 1 + 51;

/** The header in its one spelling (see {@link HEADER}). @internal */
export function headerText(header: RequestStateHeader): string {
  const trace = header.trace === undefined ? '' : `_${header.trace.slice(3)}`;
  return `${FORMAT_VERSION}_${header.iat}_${header.exp}_${header.r}${trace}`;
}

/**
 * The header a segment spells, when it is one this format can hold; anything else is malformed.
 * @internal
 */
export function parseHeader(segment: string): RequestStateHeader | undefined {
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

/**
 * What a sealer could have issued: safe integers, a lifetime and round within the options' bounds.
 * @internal
 */
export function fitsBounds(header: RequestStateHeader): boolean {
  return (
    Number.isSafeInteger(header.iat) &&
    Number.isSafeInteger(header.exp) &&
    header.r >= 1 &&
    header.r <= REQUEST_STATE_LIMIT_BOUNDS.maxRounds.max &&
    header.exp > header.iat &&
    header.exp - header.iat <= REQUEST_STATE_LIMIT_BOUNDS.maxLifetimeMs.max
  );
}

/**
 * When a state expires here: its own expiry, or earlier if this instance's lifetime is shorter.
 * @internal
 */
export function expiryOf(header: RequestStateHeader, limits: RequestStateLimits): number {
  return Math.min(header.exp, header.iat + limits.maxLifetimeMs);
}
