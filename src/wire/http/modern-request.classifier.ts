import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { MCP_META_KEYS, MCP_PROTOCOL_VERSION } from '../../kit/mcp.constants';
import { sameJson } from '../../kit/same-json';

/**
 * What the classification of one POST looks at: its standard headers and its parsed body.
 * @internal
 */
export interface InboundPost {
  readonly protocolVersionHeader: string | undefined;
  readonly mcpMethodHeader: string | undefined;
  readonly mcpNameHeader: string | undefined;
  readonly body: unknown;
}

/** The only members the SDK's (strict) JSON-RPC request schema allows. */
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
/** The 2025-era related-task `_meta` key, which the SDK's request schema types. */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
/** Envelopes remembered; past this the oldest is forgotten. */
const MAX_REMEMBERED_ENVELOPES = 128;
/** Longer envelopes (as JSON text) are not remembered: the SDK is asked each time. */
const MAX_REMEMBERED_ENVELOPE_LENGTH = 2_048;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What of a request's `_meta` the SDK's decision on it depends on, once the rest passed. */
interface Envelope {
  readonly capabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown> | undefined;
}

/** The text an envelope's verdict is remembered by, or `undefined` when it is not remembered. */
function keyOf({ capabilities, clientInfo }: Envelope): string | undefined {
  const key = `${JSON.stringify(capabilities)}\n${clientInfo === undefined ? '' : JSON.stringify(clientInfo)}`;
  // `null` stands for non-finite numbers too, which the SDK refuses where JSON null may pass.
  return key.length <= MAX_REMEMBERED_ENVELOPE_LENGTH && !key.includes('null') ? key : undefined;
}

/** Whether `value` starts or ends with what the SDK strips from a header (SP, HTAB). */
function hasEdgeWhitespace(value: string): boolean {
  const edges = value.charAt(0) + value.charAt(value.length - 1);
  return edges.includes(' ') || edges.includes('\t');
}

/**
 * Whether the SDK's `classifyInboundRequest` routes a POST as a 2026-07-28 request, without
 * running its zod schemas on every call. For a body that is, by plain checks, a strict JSON-RPC
 * request (only `jsonrpc`, `id`, `method`, `params`, so never a response), with a `_meta` naming
 * this revision as the headers do, and none of the members the SDK would type besides the
 * envelope (`progressToken`, related task, log level), the SDK's decision depends on nothing but
 * the validity of `clientInfo` and `clientCapabilities`: that verdict, the SDK's own, is
 * remembered by their JSON text (client sends the same ones on every call). Anything else, and
 * any envelope not remembered, is classified by the SDK itself.
 * @internal
 */
export class ModernRequestClassifier {
  /** The SDK's verdict on an envelope, by the JSON text of its client capabilities and info. */
  private readonly envelopes = new Map<string, boolean>();
  /**
   * The last envelope remembered and its verdict: a client sends the same one on every call, which
   * is compared member by member before its text is made (the text is most of this check's cost).
   */
  private last: (Envelope & { readonly verdict: boolean }) | undefined;

  isModernRequest(post: InboundPost): boolean {
    const envelope = this.envelopeOf(post);
    const last = this.last;
    if (
      envelope &&
      last &&
      sameJson(envelope.capabilities, last.capabilities) &&
      sameJson(envelope.clientInfo, last.clientInfo)
    )
      return last.verdict;
    const key = envelope && keyOf(envelope);
    const known = key === undefined ? undefined : this.envelopes.get(key);
    const verdict = known ?? this.sdkVerdict(post);
    if (key !== undefined && envelope) {
      if (known === undefined) this.remember(key, verdict);
      // A copy: the request's own objects reach the operation, which may change them.
      this.last = {
        capabilities: structuredClone(envelope.capabilities),
        clientInfo: structuredClone(envelope.clientInfo),
        verdict,
      };
    }
    return verdict;
  }

  private sdkVerdict(post: InboundPost): boolean {
    const route = classifyInboundRequest({ httpMethod: 'POST', ...post });
    return route.kind === 'modern' && route.messageKind === 'request';
  }

  /**
   * The envelope the SDK's decision on `post` depends on alone, or `undefined` when it may depend
   * on more (then the SDK is asked, and its answer not remembered).
   */
  private envelopeOf(post: InboundPost): Envelope | undefined {
    const { body, protocolVersionHeader, mcpMethodHeader } = post;
    if (!isObject(body) || body.jsonrpc !== '2.0') return undefined;
    // The SDK's schema reads inherited enumerable members too (`for…in`).
    for (const member in body) if (!REQUEST_MEMBERS.has(member)) return undefined;
    const { id, method, params } = body;
    if (typeof method !== 'string' || method === 'initialize' || hasEdgeWhitespace(method))
      return undefined;
    if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
    if (protocolVersionHeader !== MCP_PROTOCOL_VERSION || mcpMethodHeader !== method)
      return undefined;
    if (!isObject(params) || !isObject(params._meta)) return undefined;
    const meta = params._meta;
    if (
      meta[MCP_META_KEYS.protocolVersion] !== MCP_PROTOCOL_VERSION ||
      meta.progressToken !== undefined ||
      meta[RELATED_TASK_META_KEY] !== undefined ||
      meta[MCP_META_KEYS.logLevel] !== undefined
    )
      return undefined;
    const capabilities = meta[MCP_META_KEYS.clientCapabilities];
    const clientInfo = meta[MCP_META_KEYS.clientInfo];
    if (!isObject(capabilities) || (clientInfo !== undefined && !isObject(clientInfo)))
      return undefined;
    return { capabilities, clientInfo };
  }

  private remember(key: string, verdict: boolean): void {
    if (this.envelopes.size >= MAX_REMEMBERED_ENVELOPES) {
      const oldest = this.envelopes.keys().next();
      if (!oldest.done) this.envelopes.delete(oldest.value);
    }
    this.envelopes.set(key, verdict);
  }
}
