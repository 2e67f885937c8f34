import { Inject, Injectable } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { McpDispatcher } from './mcp-dispatcher.service';
import { ANY_PARAMS, McpTaskMethods } from '../tasks/wire/mcp-task-methods.service';
import { MCP_TASKS_EXTENSION } from '../tasks/store/mcp-task.types';
import { McpTaskServer } from '../tasks/wire/mcp-task-server';

/**
 * Builds the low-level SDK `Server` that serves one HTTP request. The low-level server (not
 * `McpServer`) is used so that guards and capability checks can answer with JSON-RPC errors.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
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
    server.setRequestHandler('tools/list', () => dispatcher.listTools());
    server.setRequestHandler('tools/call', (request, ctx) => dispatcher.callTool(request, ctx));
    server.setRequestHandler('prompts/list', () => dispatcher.listPrompts());
    server.setRequestHandler('prompts/get', (request, ctx) => dispatcher.getPrompt(request, ctx));
    server.setRequestHandler('resources/list', () => dispatcher.listResources());
    server.setRequestHandler('resources/templates/list', () => dispatcher.listResourceTemplates());
    server.setRequestHandler('resources/read', (request, ctx) =>
      dispatcher.readResource(request, ctx),
    );
    server.setRequestHandler('completion/complete', (request, ctx) =>
      dispatcher.complete(request, ctx),
    );
    const tasks = this.taskMethods;
    server.setRequestHandler('tasks/get', { params: ANY_PARAMS }, (params, ctx) =>
      tasks.get(params, ctx),
    );
    server.setRequestHandler('tasks/update', { params: ANY_PARAMS }, (params, ctx) =>
      tasks.update(params, ctx),
    );
    server.setRequestHandler('tasks/cancel', { params: ANY_PARAMS }, (params, ctx) =>
      tasks.cancel(params, ctx),
    );
    return server;
  }
}
