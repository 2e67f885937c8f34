import { canonicalJson, canonicalObject } from './canonical-json';
import { sha256Base64Url } from './sha256';

/** What framework state is bound to, besides its own header. */
export interface RequestStateBinding {
  /** Normalised endpoint path. */
  readonly endpoint: string;
  readonly protocolVersion: string;
  /** JSON-RPC method. */
  readonly method: string;
  /** Tool or prompt name, or resource URI. */
  readonly target: string;
  /** The caller's authorization partition. */
  readonly partition: string;
  /** SHA-256 of the stable request parameters. */
  readonly paramsDigest: string;
}

// Per-request preferences and tracing, which a client may change between rounds of one flow.
const TRANSIENT_META_KEYS: ReadonlySet<string> = new Set([
  'progressToken',
  'traceparent',
  'tracestate',
  'baggage',
  'io.modelcontextprotocol/logLevel',
]);

function encodeStableMeta(key: string, value: unknown): string | undefined {
  return value === undefined || TRANSIENT_META_KEYS.has(key) ? undefined : canonicalJson(value);
}

function encodeStableParam(key: string, value: unknown): string | undefined {
  if (key === 'inputResponses' || key === 'requestState') return undefined;
  if (key === 'arguments') return canonicalJson(value ?? {});
  if (key === '_meta' && value !== null && typeof value === 'object') {
    const meta = canonicalObject(value as Record<string, unknown>, encodeStableMeta);
    return meta === '{}' ? undefined : meta;
  }
  return value === undefined ? undefined : canonicalJson(value);
}

const ALWAYS_BOUND_PARAMS = ['arguments'];

/**
 * Digest of the parameters that must stay the same across rounds: everything except
 * `inputResponses`, `requestState` and transient progress/trace/baggage `_meta` (a `_meta` left
 * empty counts as absent, absent `arguments` as `{}`).
 */
export function stableParamsDigest(params: Readonly<Record<string, unknown>>): string {
  return sha256Base64Url(canonicalObject(params, encodeStableParam, ALWAYS_BOUND_PARAMS));
}
