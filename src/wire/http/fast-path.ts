import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ProtocolError,
  SERVER_INFO_META_KEY,
  type CacheHint,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ProtectedResource } from '../../auth/protected-resource';
import {
  SERVER_OPTIONS,
  type McpCacheableMethod,
  type ServerOptions,
} from '../protocol/server.options';
import { MCP_META_KEYS, MCP_PROTOCOL_VERSION } from '../../kit/mcp.constants';
import { McpDispatcher } from '../protocol/mcp-dispatcher.service';
import { McpServedRequests } from '../protocol/served-requests';
import type { HttpExchange } from '../../pipeline/http-exchange';
import {
  LIST_METHODS,
  type ListingPage,
  type ListKind,
} from '../../operations/discovery/listing-page';
import { endWithPieces, jsonPieces } from '../../kit/encoded-json';
import { errorAnswerOf } from './fast-path-error';
import { fastPathContextOf } from './fast-path-context';
import { ModernRequestClassifier } from './modern-request.classifier';
import { exchangeOf, taken, type EndpointRequest, type EndpointStage } from './endpoint-stage';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';

type Message = { jsonrpc: '2.0'; id: string | number; method: string; params: Params };
type Params = Record<string, unknown> & { _meta: Record<string, unknown> };
type Answer = (
  dispatcher: McpDispatcher,
  message: never,
  sdk: ServerContext,
  exchange: HttpExchange,
) => unknown;

/** How a method is served: by its handler, or from the serialized pages of a list. */
type Served =
  | { answer: Answer; list?: undefined; nameParam?: 'name' | 'uri' }
  | { answer?: undefined; list: ListKind; nameParam?: undefined };

/** The methods served without the SDK, and which parameter `Mcp-Name` mirrors. */
const FAST_METHODS: ReadonlyMap<string, Served> = new Map<string, Served>([
  ['tools/call', { answer: (d, m, s, e) => d.callTool(m, s, e), nameParam: 'name' }],
  ['prompts/get', { answer: (d, m, s, e) => d.getPrompt(m, s, e), nameParam: 'name' }],
  ['resources/read', { answer: (d, m, s, e) => d.readResource(m, s, e), nameParam: 'uri' }],
  ...LIST_METHODS.map(([method, list]): [string, Served] => [method, { list }]),
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * The hot 2026-07-28 methods served directly: the same answers the SDK path gives (a
 * differential test holds the two together), without building an SDK server per request or
 * bridging to web `Request`/`Response`. Only requests the SDK would certainly serve take it — the
 * SDK's own classifier says "modern request" ({@link ModernRequestClassifier}), every header agrees
 * with the body, the envelope is complete, and nothing asks for a stream (progress or logging);
 * anything else goes to the SDK. Off with `http.fastPath: false`.
 * @internal
 */
@Injectable()
export class McpFastPath implements EndpointStage {
  private readonly logger = new Logger('McpModule');
  private readonly serverInfoMeta: Record<string, unknown>;
  /** What follows a list page's members in its result, by method: the kind, cache hints, server info. */
  private readonly listTails = new Map<string, string>();
  private readonly classifier = new ModernRequestClassifier();
  private readonly enabled: boolean;

  constructor(
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    @Inject(TRANSPORT_OPTIONS) transport: TransportOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly served: McpServedRequests,
    private readonly resource: ProtectedResource,
  ) {
    this.serverInfoMeta = { [SERVER_INFO_META_KEY]: options.serverInfo };
    this.enabled = transport.fastPath;
  }

  /** The endpoint's stage: a request it can serve directly is taken, any other passed on. */
  take(current: EndpointRequest): boolean | Promise<boolean> {
    if (!this.enabled) return false;
    const message = this.accepts(current.raw, current.checked?.message);
    return message !== undefined && taken(this.serve(message, exchangeOf(current)));
  }

  /** The message, when this request can be served directly. */
  accepts(req: IncomingMessage, body: unknown): Message | undefined {
    if (!isObject(body) || body.jsonrpc !== '2.0') return undefined;
    const { id, method, params } = body;
    if (typeof method !== 'string' || !(typeof id === 'string' || Number.isSafeInteger(id)))
      return undefined;
    const served = FAST_METHODS.get(method);
    if (!served || !isObject(params) || !isObject(params._meta)) return undefined;
    // The SDK refuses a requestState that is not a string on the methods that carry one, before
    // any handler runs (-32602 "Invalid or expired requestState"): such a request is its to answer.
    if (
      served.nameParam &&
      Object.hasOwn(params, 'requestState') &&
      typeof params.requestState !== 'string'
    )
      return undefined;
    const meta = params._meta;
    if (
      meta[MCP_META_KEYS.protocolVersion] !== MCP_PROTOCOL_VERSION ||
      !isObject(meta[MCP_META_KEYS.clientCapabilities]) ||
      (meta[MCP_META_KEYS.clientInfo] !== undefined && !isObject(meta[MCP_META_KEYS.clientInfo])) ||
      Object.hasOwn(meta, MCP_META_KEYS.logLevel) ||
      Object.hasOwn(meta, 'progressToken') ||
      // Calls an extension may divert (into a task) take the SDK's path, which serves extensions.
      this.dispatcher.diverts.declaredBy(meta[MCP_META_KEYS.clientCapabilities])
    )
      return undefined;
    const contentType = header(req, 'content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(contentType)) return undefined;
    const protocolVersion = header(req, 'mcp-protocol-version');
    const mcpMethod = header(req, 'mcp-method');
    const mcpName = header(req, 'mcp-name');
    if (protocolVersion !== MCP_PROTOCOL_VERSION || mcpMethod !== method) return undefined;
    if (served.nameParam ? mcpName !== params[served.nameParam] : mcpName !== undefined)
      return undefined;
    const modern = this.classifier.isModernRequest({
      protocolVersionHeader: protocolVersion,
      mcpMethodHeader: mcpMethod,
      mcpNameHeader: mcpName,
      body,
    });
    return modern ? (body as Message) : undefined;
  }

  /** Answers `message`, which came on `exchange`, as the SDK path would. Never rejects. */
  async serve(message: Message, exchange: HttpExchange): Promise<void> {
    const req = exchange.raw as IncomingMessage & { auth?: unknown };
    const res = exchange.response;
    const served = FAST_METHODS.get(message.method);
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const sdk = fastPathContextOf(
      message.id,
      message.method,
      message.params._meta,
      req,
      aborted.signal,
    );
    try {
      if (served?.list) {
        const cursor = message.params.cursor as string | undefined;
        const list = served.list;
        const dispatcher = this.dispatcher;
        // Unobserved, nothing is made for a span (not even the closure).
        const page = await (this.served.observing()
          ? this.served.served(message.method, sdk, exchange, () =>
              dispatcher.list(list, cursor, sdk, exchange),
            )
          : dispatcher.list(list, cursor, sdk, exchange));
        this.writeText(res, 200, this.listAnswer(message, page));
        return;
      }
      const result = (await served?.answer(
        this.dispatcher,
        message as never,
        sdk,
        exchange,
      )) as Record<string, unknown>;
      this.write(res, 200, {
        result: this.decorate(message.method, result),
        jsonrpc: '2.0',
        id: message.id,
      });
    } catch (thrown) {
      if (!(thrown instanceof ProtocolError))
        this.logger.error(
          'MCP request failed',
          thrown instanceof Error ? thrown.stack : String(thrown),
        );
      const { status, body, headers } = errorAnswerOf(thrown, (refusal) =>
        this.resource.headersOf(refusal, req),
      );
      this.write(res, status, { jsonrpc: '2.0', id: message.id, error: body }, headers);
    }
  }

  /**
   * The answer to a list request, from the page's serialized members: the bytes
   * `JSON.stringify` would write for the decorated result, without serializing the entries again.
   */
  private listAnswer(message: Message, page: ListingPage<unknown>): string {
    let tail = this.listTails.get(message.method);
    if (tail === undefined) {
      tail = JSON.stringify(this.decorate(message.method, {})).slice(1, -1);
      this.listTails.set(message.method, tail);
    }
    return `{"result":{${page.membersJson},${tail}},"jsonrpc":"2.0","id":${JSON.stringify(message.id)}}`;
  }

  /** What the SDK adds to a result: its kind, cache hints of a complete cacheable one, server info. */
  private decorate(method: string, result: Record<string, unknown>): Record<string, unknown> {
    const decorated: Record<string, unknown> = { ...result };
    decorated.resultType ??= 'complete';
    const hint: CacheHint | undefined = this.options.cacheHints[method as McpCacheableMethod];
    if (decorated.resultType === 'complete' && hint) {
      decorated.ttlMs = hint.ttlMs;
      decorated.cacheScope = hint.cacheScope;
    }
    decorated._meta = isObject(result._meta)
      ? { ...result._meta, ...this.serverInfoMeta }
      : this.serverInfoMeta;
    return decorated;
  }

  /** Writes `body` as JSON; an encoded string inside it (a skill file) goes out as its own bytes. */
  private write(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    const { pieces, byteLength } = jsonPieces(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': byteLength,
      ...headers,
    });
    endWithPieces(res, pieces);
  }

  private writeText(
    res: ServerResponse,
    status: number,
    text: string,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  }
}
