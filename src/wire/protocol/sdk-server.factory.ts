import { Inject, Injectable } from '@nestjs/common';
import { SERVER_OPTIONS, type ServerOptions } from './server.options';
import { McpDispatcher } from './mcp-dispatcher.service';
import { ANY_PARAMS, McpMethodTable } from './method-table';
import { McpSdkServer } from './mcp-sdk-server';
import { McpServedRequests } from './served-requests';
import { McpServerCapabilities } from './server-capabilities';
import { sdkRequestExchange } from './sdk-request-exchange';
import { listResultOf } from '../../operations/discovery/listing-page';
import { recordingRefusal } from './http-refusals';
import { OPERATION_METHODS } from './served-request';

/**
 * Builds the low-level SDK `Server` that serves one HTTP request on the SDK path. The low-level
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

  create(): McpSdkServer {
    const server = new McpSdkServer(this.options.serverInfo, {
      capabilities: this.capabilities.of({
        tools: { listChanged: true },
        prompts: { listChanged: true },
        // subscribe: listen streams may follow resource URIs (McpNotifier.resourceUpdated).
        resources: { listChanged: true, subscribe: true },
        completions: {},
        // ctx.logger sends notifications/message, which the SDK refuses unless logging is declared.
        logging: {},
      }),
      instructions: this.options.instructions,
      cacheHints: this.options.cacheHints,
    });
    const dispatcher = this.dispatcher;
    const served = this.servedRequests;
    const exchange = sdkRequestExchange.current;
    server.observeWith(
      {
        observing: () => served.observing(),
        served: (method, ctx, serve) =>
          served.served(method, ctx, exchange(method), serve) as ReturnType<typeof serve>,
      },
      OPERATION_METHODS,
    );
    server.setRequestHandler('tools/list', (request, ctx) =>
      recordingRefusal(exchange('tools/list'), async (on) =>
        listResultOf('tools', await dispatcher.listTools(request.params?.cursor, ctx, on)),
      ),
    );
    server.setRequestHandler('tools/call', (request, ctx) =>
      recordingRefusal(exchange('tools/call'), (on) => dispatcher.callTool(request, ctx, on)),
    );
    server.setRequestHandler('prompts/list', (request, ctx) =>
      recordingRefusal(exchange('prompts/list'), async (on) =>
        listResultOf('prompts', await dispatcher.listPrompts(request.params?.cursor, ctx, on)),
      ),
    );
    server.setRequestHandler('prompts/get', (request, ctx) =>
      recordingRefusal(exchange('prompts/get'), (on) => dispatcher.getPrompt(request, ctx, on)),
    );
    server.setRequestHandler('resources/list', (request, ctx) =>
      recordingRefusal(exchange('resources/list'), async (on) =>
        listResultOf('resources', await dispatcher.listResources(request.params?.cursor, ctx, on)),
      ),
    );
    server.setRequestHandler('resources/templates/list', (request, ctx) =>
      recordingRefusal(exchange('resources/templates/list'), async (on) =>
        listResultOf(
          'resourceTemplates',
          await dispatcher.listResourceTemplates(request.params?.cursor, ctx, on),
        ),
      ),
    );
    server.setRequestHandler('resources/read', (request, ctx) =>
      recordingRefusal(exchange('resources/read'), (on) =>
        dispatcher.readResource(request, ctx, on),
      ),
    );
    server.setRequestHandler('completion/complete', (request, ctx) =>
      recordingRefusal(exchange('completion/complete'), (on) =>
        dispatcher.complete(request, ctx, on),
      ),
    );
    for (const [method, handler] of this.methods.entries())
      server.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) =>
        recordingRefusal(exchange(method), (on) => handler(params, ctx, on)),
      );
    return server;
  }
}
