import { canonicalJson, canonicalObject } from '../../kit/canonical-json';

/** What framework state is bound to, besides its own header. @internal */
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
  /** {@link stableParams}: the request parameters that must not change between rounds. */
  readonly stableParams: string;
  /** The `arguments` alone in canonical JSON, made when needed (sealing, or naming a refusal). */
  readonly stableArguments: () => string;
  /**
   * The digest of the operation's definition (its contract: name, schemas, declarations, state
   * mode — never its code), so a flow sealed under one definition does not continue under another.
   */
  readonly definition: string;
}

/**
 * What a sealed state is bound to, field by field, as a refusal names it in the log: the endpoint,
 * the protocol version, the operation (method and tool, prompt or resource), the caller's
 * partition, the arguments, the other stable params (bound `_meta` members, other params), and the
 * operation's definition (a deploy or a run-time registration that changed its contract).
 * @publicApi
 */
export type RequestStateBindingField =
  'endpoint' | 'protocol_version' | 'operation' | 'caller' | 'arguments' | 'params' | 'definition';

/**
 * The fields in the order their digests are sealed. `definition` came last, so a state sealed
 * before it was bound (its digests end earlier) names it when refused.
 * @internal
 */
export const BINDING_FIELDS: readonly RequestStateBindingField[] = [
  'endpoint',
  'protocol_version',
  'operation',
  'caller',
  'arguments',
  'params',
  'definition',
];

/** The canonical JSON of the request's `arguments` (`{}` when absent). @internal */
export function stableArguments(params: Readonly<Record<string, unknown>>): string {
  return canonicalJson(params.arguments ?? {});
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
 * The parameters that must stay the same across rounds, in canonical JSON: everything except
 * `inputResponses`, `requestState` and transient progress/trace/baggage `_meta` (a `_meta` left
 * empty counts as absent, absent `arguments` as `{}`). Bound whole as associated data: the AEAD
 * authenticates any length, so no digest of it is needed.
 * @internal
 */
export function stableParams(params: Readonly<Record<string, unknown>>): string {
  return canonicalObject(params, encodeStableParam, ALWAYS_BOUND_PARAMS);
}
