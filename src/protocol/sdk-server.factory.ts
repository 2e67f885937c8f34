import { Inject, Injectable } from '@nestjs/common';
import { SERVER_OPTIONS, type ServerOptions } from './server.options';
import { McpDispatcher } from './mcp-dispatcher.service';
import { ANY_PARAMS, McpTaskMethods } from '../tasks/wire/mcp-task-methods.service';
import { MCP_TASKS_EXTENSION } from '../tasks/store/mcp-task.types';
import { McpTaskServer } from '../tasks/wire/mcp-task-server';
import { sdkRequestExchange } from './sdk-request-exchange';
import { listResultOf } from '../discovery/listing-page';

/** A list page as the SDK's result: a fresh object each time, since the SDK adds to what it gets. */
/**
 * Builds the low-level SDK `Server` that serves one HTTP request on the SDK path. The low-level
 * server (not `McpServer`) is used so that guards and capability checks can answer with JSON-RPC
 * errors. Each handler takes the request's HTTP exchange from {@link sdkRequestExchange} and hands
 * it on explicitly.
 * @internal
 */
@Injectable()
export class SdkServerFactory {
  constructor(
    @Inject(SERVER_OPTIONS) private readonly options: ServerOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly taskMethods: McpTaskMethods,
  ) {}

  create(): McpTaskServer {
    const server = new McpTaskServer(this.options.serverInfo, {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        // subscribe: listen streams may follow resource URIs (McpNotifier.resourceUpdated).
        resources: { listChanged: true, subscribe: true },
        completions: {},
        // ctx.logger sends notifications/message, which the SDK refuses unless logging is declared.
        logging: {},
        extensions: { [MCP_TASKS_EXTENSION]: {} },
      },
      instructions: this.options.instructions,
      cacheHints: this.options.cacheHints,
    });
    const dispatcher = this.dispatcher;
    const exchange = sdkRequestExchange.current;
    server.setRequestHandler('tools/list', (request) =>
      listResultOf('tools', dispatcher.listTools(request.params?.cursor)),
    );
    server.setRequestHandler('tools/call', (request, ctx) =>
      dispatcher.callTool(request, ctx, exchange('tools/call')),
    );
    server.setRequestHandler('prompts/list', (request) =>
      listResultOf('prompts', dispatcher.listPrompts(request.params?.cursor)),
    );
    server.setRequestHandler('prompts/get', (request, ctx) =>
      dispatcher.getPrompt(request, ctx, exchange('prompts/get')),
    );
    server.setRequestHandler('resources/list', (request) =>
      listResultOf('resources', dispatcher.listResources(request.params?.cursor)),
    );
    server.setRequestHandler('resources/templates/list', (request) =>
      listResultOf('resourceTemplates', dispatcher.listResourceTemplates(request.params?.cursor)),
    );
    server.setRequestHandler('resources/read', (request, ctx) =>
      dispatcher.readResource(request, ctx, exchange('resources/read')),
    );
    server.setRequestHandler('completion/complete', (request, ctx) =>
      dispatcher.complete(request, ctx, exchange('completion/complete')),
    );
    const tasks = this.taskMethods;
    server.setRequestHandler('tasks/get', { params: ANY_PARAMS }, (params, ctx) =>
      tasks.get(params, ctx, exchange('tasks/get')),
    );
    server.setRequestHandler('tasks/update', { params: ANY_PARAMS }, (params, ctx) =>
      tasks.update(params, ctx, exchange('tasks/update')),
    );
    server.setRequestHandler('tasks/cancel', { params: ANY_PARAMS }, (params, ctx) =>
      tasks.cancel(params, ctx, exchange('tasks/cancel')),
    );
    return server;
  }
}
