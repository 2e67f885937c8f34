import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { ProtectedResource } from '../../auth/protected-resource';
import { refusalOf } from '../protocol/http-refusals';
import { sdkRequestExchange } from '../protocol/sdk-request-exchange';
import { SdkServerFactory } from '../protocol/sdk-server.factory';
import { LISTEN_LIMITS, type ListenLimits } from '../listen/listen-limits';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { serializeEncodedStringsInto, withEncodedStrings } from '../../kit/encoded-json';
import { quoted } from '../../kit/quoted';
import { TRANSPORT_OPTIONS, type TransportOptions } from './transport.options';

/** The most of an SDK's rejection reason a debug line keeps. */
const MAX_LOGGED_REASON = 512;

/** The encoded strings the SDK left out of the answer to each exchange (see the constructor). */
const encodedStrings = new WeakMap<HttpExchange, Buffer[]>();

/**
 * `response` with the encoded strings left out of it written in: a JSON answer when it held any, a
 * stream always (its messages are serialized after it opened).
 */
function withEncodedStringsOf(response: Response, parts: Buffer[]): Response {
  const streamed = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
  if (response.body === null || (!streamed && parts.length === 0)) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(withEncodedStrings(response.body, parts), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
) => Promise<void>;

/**
 * The official SDK's HTTP handlers (`createMcpHandler` over the module's low-level server): one
 * for every request the fast path leaves to the SDK, one only for `subscriptions/listen`, which
 * validates and acknowledges a listen request (the module's `ListenStreams` holds the stream).
 * Both are closed once Nest has closed the HTTP server: while the instance drains, a listen
 * request is still acknowledged, and `ListenStreams` ends it at once with its final result (the
 * client opens its next one elsewhere) — closing the handler earlier answered it -32603.
 * @internal
 */
@Injectable()
export class SdkHandlers implements OnApplicationShutdown {
  private readonly logger = new Logger('McpModule');
  readonly main: McpHttpHandler;
  readonly listen: McpHttpHandler;
  /** The main handler on Node's request and response. */
  readonly node: NodeHandler;

  constructor(
    @Inject(TRANSPORT_OPTIONS) options: TransportOptions,
    @Inject(LISTEN_LIMITS) listen: ListenLimits,
    serverFactory: SdkServerFactory,
    private readonly resource: ProtectedResource,
  ) {
    const handlerOptions = {
      // 2025-era traffic is the session endpoint's; whatever reaches the SDK here is modern or
      // refused (sessions disabled): never served statelessly, which would over-promise.
      legacy: 'reject' as const,
      keepAliveMs: options.keepAliveMs,
      maxRequestBodySize: options.body.maxBytes,
      // The SDK's reasons may quote what the client sent.
      onerror: (error: Error) =>
        this.logger.debug(`MCP request rejected: ${quoted(error.message, MAX_LOGGED_REASON)}`),
    };
    this.main = createMcpHandler(() => serverFactory.create(), handlerOptions);
    this.listen = createMcpHandler(() => serverFactory.create(), {
      ...handlerOptions,
      bus: this.main.bus,
      // A backstop only: the module's limits answer first, and the SDK keeps no stream open.
      maxSubscriptions: listen.maxStreams,
    });
    const main = this.main;
    // Large strings the module encoded once (skill files) stay out of the SDK's JSON text: the SDK
    // serializes a placeholder for each, for the request being served, and the bytes go out here.
    serializeEncodedStringsInto(() => {
      const exchange = sdkRequestExchange.peek();
      return exchange && encodedStrings.get(exchange);
    });
    this.node = toNodeHandler({
      fetch: async (request: Request, fetchOptions?: Parameters<McpHttpHandler['fetch']>[1]) => {
        const exchange = sdkRequestExchange.peek();
        const parts: Buffer[] = [];
        if (exchange) encodedStrings.set(exchange, parts);
        const response = this.withRefusalStatus(await main.fetch(request, fetchOptions));
        return exchange ? withEncodedStringsOf(response, parts) : response;
      },
    } as McpHttpHandler) as NodeHandler;
  }

  /**
   * The SDK answers a handler's error with HTTP 200; a refusal that has its own status (401 and
   * 403 with their Bearer challenge, 429 with `Retry-After`) gets it here, as on the fast path. A
   * response already streaming (SSE) was started before the handler ran and keeps its 200.
   */
  private withRefusalStatus(response: Response): Response {
    const exchange = sdkRequestExchange.peek();
    const refusal = exchange && refusalOf(exchange);
    if (!refusal || response.status !== 200) return response;
    if (!(response.headers.get('content-type') ?? '').startsWith('application/json'))
      return response;
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(this.resource.headersOf(refusal, exchange.raw)))
      headers.set(name, value);
    return new Response(response.body, { status: refusal.httpStatus, headers });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.listen.close(), this.main.close()]);
  }
}
