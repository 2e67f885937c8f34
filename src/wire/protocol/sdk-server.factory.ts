import { Inject, Injectable } from '@nestjs/common';
import type { ServerCapabilities, ServerContext } from '@modelcontextprotocol/server';
import type { HttpExchange } from '../../pipeline/http-exchange';
import { SERVER_OPTIONS, type ServerOptions } from './server.options';
import { McpDispatcher, type CallVia } from './mcp-dispatcher.service';
import { ANY_PARAMS, McpMethodTable } from './method-table';
import { McpSdkServer } from './mcp-sdk-server';
import { McpServedRequests } from './served-requests';
import { McpServerCapabilities } from './server-capabilities';
import { sdkRequestExchange } from './sdk-request-exchange';
import { LIST_METHODS, listResultOf } from '../../operations/discovery/listing-page';
import { recordingRefusal } from './http-refusals';
import { OPERATION_METHODS } from './served-request';

/**
 * Where the requests a server serves come from, when not from the HTTP endpoint (stdio). @internal
 */
export interface SdkServerSource {
  /** The exchange of one request (default: the HTTP exchange the endpoint serves it in). */
  readonly exchangeOf?: (method: string, ctx: ServerContext) => HttpExchange;
  /**
   * A server for a 2025-era connection: the SDK context every operation sees (what the client
   * declared at `initialize`, as a 2026-07-28 request's envelope carries it), how a call runs (it
   * asks its client between rounds), and the extensions and methods of that era only.
   */
  readonly legacy?: {
    readonly contextOf: (ctx: ServerContext) => ServerContext;
    readonly callVia: (ctx: ServerContext) => CallVia;
  };
}

/** The core's capabilities: what the dispatcher and the notifier serve. */
const CORE_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  // subscribe: listen streams may follow resource URIs (McpNotifier.resourceUpdated).
  resources: { listChanged: true, subscribe: true },
  completions: {},
  // ctx.logger sends notifications/message, which the SDK refuses unless logging is declared.
  logging: {},
};

/**
 * Builds the low-level SDK `Server` that serves one HTTP request on the SDK path (or a stdio
 * connection, {@link SdkServerSource}). The low-level
 * server (not `McpServer`) is used so that guards and capability checks can answer with JSON-RPC
 * errors. Each handler takes the request's HTTP exchange from {@link sdkRequestExchange} and hands
 * it on explicitly. Extensions add their methods ({@link McpMethodTable}) and their capability
 * entries ({@link McpServerCapabilities}); this file never names one.
 * @internal
 */
@Injectable()
export class SdkServerFactory {
  constructor(
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly servedRequests: McpServedRequests,
    private readonly methods: McpMethodTable,
    private readonly capabilities: McpServerCapabilities,
  ) {}

  create(source: SdkServerSource = {}): McpSdkServer {
    const legacy = source.legacy;
    const capabilities = this.capabilities.of(CORE_CAPABILITIES);
    if (legacy) {
      const extensions = this.capabilities.legacyExtensions();
      delete capabilities.extensions;
      if (extensions) capabilities.extensions = extensions as ServerCapabilities['extensions'];
    }
    const server = new McpSdkServer(this.options.serverInfo, {
      capabilities,
      instructions: this.options.instructions,
      cacheHints: this.options.cacheHints,
    });
    const dispatcher = this.dispatcher;
    const served = this.servedRequests;
    const exchangeOf =
      source.exchangeOf ?? ((method: string) => sdkRequestExchange.current(method));
    const contextOf = legacy?.contextOf ?? ((ctx: ServerContext) => ctx);
    const via = (ctx: ServerContext): CallVia => legacy?.callVia(ctx) ?? {};
    /** Serves a request of `method` on its exchange, with the context its era's operations see. */
    const serve =
      <T>(method: string, work: (ctx: ServerContext, on: HttpExchange) => Promise<T> | T) =>
      (ctx: ServerContext): Promise<T> =>
        recordingRefusal(exchangeOf(method, ctx), (on) => work(contextOf(ctx), on));
    server.observeWith(
      {
        observing: () => served.observing(),
        served: (method, ctx, work) =>
          served.served(method, ctx, exchangeOf(method, ctx), work) as ReturnType<typeof work>,
      },
      OPERATION_METHODS,
    );
    for (const [method, kind] of LIST_METHODS)
      server.setRequestHandler(method, (request, ctx) =>
        serve(method, async (sdk, on) =>
          listResultOf(kind, await dispatcher.list(kind, request.params?.cursor, sdk, on)),
        )(ctx),
      );
    server.setRequestHandler('tools/call', (request, ctx) =>
      serve('tools/call', (sdk, on) => dispatcher.callTool(request, sdk, on, via(sdk)))(ctx),
    );
    server.setRequestHandler('prompts/get', (request, ctx) =>
      serve('prompts/get', (sdk, on) => dispatcher.getPrompt(request, sdk, on, via(sdk)))(ctx),
    );
    server.setRequestHandler('resources/read', (request, ctx) =>
      serve('resources/read', (sdk, on) => dispatcher.readResource(request, sdk, on, via(sdk)))(
        ctx,
      ),
    );
    server.setRequestHandler('completion/complete', (request, ctx) =>
      serve('completion/complete', (sdk, on) => dispatcher.complete(request, sdk, on))(ctx),
    );
    for (const [method, handler] of this.methods.entries()) {
      if (legacy && !this.methods.legacy(method)) continue;
      server.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) =>
        serve(method, (sdk, on) => handler(params, sdk, on))(ctx),
      );
    }
    return server;
  }
}
