import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

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
const TRANSIENT_META_KEYS = [
  'progressToken',
  'traceparent',
  'tracestate',
  'baggage',
  'io.modelcontextprotocol/logLevel',
];

/**
 * Digest of the parameters that must stay the same across rounds: everything except
 * `inputResponses`, `requestState` and transient progress/trace/baggage `_meta`.
 */
export function stableParamsDigest(params: Record<string, unknown>): string {
  const stable: Record<string, unknown> = { ...params };
  delete stable.inputResponses;
  delete stable.requestState;
  // Clients may omit empty arguments in one round and send `{}` in the next.
  stable.arguments ??= {};
  if (stable._meta !== null && typeof stable._meta === 'object') {
    const meta = { ...(stable._meta as Record<string, unknown>) };
    for (const key of TRANSIENT_META_KEYS) delete meta[key];
    // `_meta` with only transient keys in one round and no `_meta` in the next is the same call.
    if (Object.keys(meta).length > 0) stable._meta = meta;
    else delete stable._meta;
  }
  return createHash('sha256').update(canonicalJson(stable)).digest('base64url');
}
