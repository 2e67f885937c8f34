import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ProtocolError,
  type CallToolRequest,
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptRequest,
  type GetPromptResult,
  type ListPromptsResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type ReadResourceRequest,
  type ReadResourceResult,
  type Resource,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import type { InputRequestPolicy } from '../input/input-request-policy';
import { operationScope } from '../pipeline/operation-scope';
import { ownRequestParams } from '../pipeline/own-request-params';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import type {
  RegisteredOperation,
  ResourceTemplateListing,
} from '../discovery/registered-operation.interface';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { internalError } from '../errors/internal-error';
import { McpHttpResponse } from '../pipeline/mcp-http-response';
import { clip } from '../util/clip';
import { mapOperationError } from '../pipeline/operation-error.mapper';
import {
  normalizePromptResult,
  normalizeResourceResult,
  normalizeToolResult,
} from '../pipeline/operation-result.normalizer';
import { createRequestContext, type TaskCallScope } from '../pipeline/request-context.factory';
import type { RegisteredTool } from '../discovery/registered-operation.interface';
import { McpTaskCalls } from '../tasks/mcp-task-calls.service';
import { toInputRequiredWire } from '../pipeline/input-required-wire';
import { httpExchangeStorage, type HttpExchange } from '../pipeline/http-exchange.storage';
import { McpOperationCall } from '../pipeline/mcp-operation-call';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';
import { undeclaredInputMessage } from '../input/undeclared-input.message';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';

const MAX_COMPLETION_VALUES = 100;

/** Serves each MCP method from the operation registry, through the Nest pipeline. */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpModule');
  private readonly inputPolicy: InputRequestPolicy;

  constructor(
    private readonly registry: McpOperationRegistry,
    @Inject(MCP_RESOLVED_OPTIONS) options: ResolvedMcpOptions,
    private readonly taskCalls: McpTaskCalls,
  ) {
    this.inputPolicy = {
      secrets: options.elicitation.secretPolicy,
      development: options.elicitation.development,
    };
    taskCalls.attach((tool, sdk, params, scope) => this.runTool(tool, sdk, params, scope));
  }

  listTools(): ListToolsResult {
    return { tools: this.registry.getTools().map((tool) => tool.listing) };
  }

  listPrompts(): ListPromptsResult {
    return { prompts: this.registry.getPrompts().map((prompt) => prompt.listing) };
  }

  listResources(): ListResourcesResult {
    return {
      resources: this.registry.getFixedResources().map((resource) => resource.listing as Resource),
    };
  }

  listResourceTemplates(): ListResourceTemplatesResult {
    return {
      resourceTemplates: this.registry
        .getTemplateResources()
        .map((resource) => resource.listing as ResourceTemplateListing),
    };
  }

  async callTool(request: CallToolRequest, sdk: ServerContext): Promise<CallToolResult> {
    const { name } = request.params;
    const tool = this.registry.findTool(name);
    if (!tool)
      throw new ProtocolError(McpErrorCode.InvalidParams, `Unknown tool: ${clip(name)}`, {
        name: clip(name),
      });
    if (tool.task.support !== 'forbidden') {
      const asTask = await this.taskCalls.callTool(tool, request, sdk);
      if (asTask) return asTask as CallToolResult;
    }
    return this.runTool(tool, sdk, request.params);
  }

  /**
   * One run of a tool through its pipeline: its result, or the input-required answer. In a task
   * run, `params` are the task's own (exact) and `taskScope` what the method sees of the task.
   */
  private async runTool(
    tool: RegisteredTool,
    sdk: ServerContext,
    params: CallToolRequest['params'],
    taskScope?: TaskCallScope & { readonly exactParams?: Record<string, unknown> },
  ): Promise<CallToolResult> {
    const outcome = await this.invoke(
      tool,
      params.arguments ?? {},
      sdk,
      tool.name,
      params,
      undefined,
      taskScope,
    );
    return (
      (outcome.wire as CallToolResult | undefined) ??
      normalizeToolResult(outcome.value, tool.listing.outputSchema !== undefined)
    );
  }

  async getPrompt(request: GetPromptRequest, sdk: ServerContext): Promise<GetPromptResult> {
    const { name } = request.params;
    const prompt = this.registry.findPrompt(name);
    if (!prompt)
      throw new ProtocolError(McpErrorCode.InvalidParams, `Unknown prompt: ${clip(name)}`, {
        name: clip(name),
      });
    const outcome = await this.invoke(
      prompt,
      request.params.arguments ?? {},
      sdk,
      name,
      request.params,
    );
    return (outcome.wire as GetPromptResult | undefined) ?? normalizePromptResult(outcome.value);
  }

  async readResource(
    request: ReadResourceRequest,
    sdk: ServerContext,
  ): Promise<ReadResourceResult> {
    const { uri } = request.params;
    const found = this.registry.findResource(uri);
    if (!found)
      throw new ProtocolError(McpErrorCode.InvalidParams, 'Resource not found', { uri: clip(uri) });
    const outcome = await this.invoke(found.resource, found.variables, sdk, uri, request.params);
    return (
      (outcome.wire as ReadResourceResult | undefined) ??
      normalizeResourceResult(outcome.value, uri, found.resource.metadata.options.mimeType)
    );
  }

  /** Completion runs under the guards, interceptors and filters of the prompt or template it serves. */
  async complete(request: CompleteRequest, sdk: ServerContext): Promise<CompleteResult> {
    const { ref, argument } = request.params;
    const operation = this.completionTarget(ref);
    const target = ref.type === 'ref/prompt' ? ref.name : ref.uri;
    let values: unknown = [];
    if (operation.completionHandler) {
      const outcome = await this.invoke(
        operation,
        request.params.context?.arguments ?? {},
        sdk,
        target,
        request.params,
        { argument: argument.name, value: argument.value },
      );
      // What the completer returned; an MCP-aware exception filter's own answer otherwise.
      values = outcome.completionValues ?? outcome.value;
    }
    if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) {
      this.logger.error(
        `MCP completion for "${clip(target)}" did not produce an array of strings (an interceptor or filter changed it)`,
      );
      throw internalError();
    }
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETION_VALUES) as string[],
        total: values.length,
        hasMore: values.length > MAX_COMPLETION_VALUES,
      },
    };
  }

  private completionTarget(ref: CompleteRequest['params']['ref']): RegisteredOperation {
    if (ref.type === 'ref/prompt') {
      const prompt = this.registry.findPrompt(ref.name);
      if (!prompt)
        throw new ProtocolError(McpErrorCode.InvalidParams, `Unknown prompt: ${clip(ref.name)}`, {
          name: clip(ref.name),
        });
      return prompt;
    }
    const template = this.registry.findTemplate(ref.uri);
    if (!template)
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        `Unknown resource template: ${clip(ref.uri)}`,
        { uri: clip(ref.uri) },
      );
    return template;
  }

  /**
   * Runs one call through the operation's Nest pipeline. An input-required answer is built only
   * from what the library's innermost step recorded for this call, whatever outer interceptors made
   * of the result; an input-required result it did not record (cached, replayed by an interceptor)
   * is refused.
   */
  private async invoke(
    operation: RegisteredOperation,
    args: Record<string, unknown>,
    sdk: ServerContext,
    target: string,
    params: object,
    completion?: McpOperationCall['completion'],
    taskScope?: TaskCallScope & { readonly exactParams?: Record<string, unknown> },
  ): Promise<{ value: unknown; wire: object | undefined; completionValues?: readonly string[] }> {
    const exchange = httpExchangeStorage.getStore();
    const handler = completion ? operation.completionHandler : operation.handler;
    if (!exchange || !handler) {
      this.logger.error(
        `MCP ${operation.kind} "${clip(target)}" was called outside an HTTP exchange`,
      );
      throw internalError();
    }
    const callParams = taskScope?.exactParams ?? this.callParams(exchange, sdk, params);
    const ownArguments = callParams.arguments;
    const call = new McpOperationCall(
      completion ? 'completion' : 'operation',
      // Tool and prompt arguments as parsed by the module, so a "__proto__" key is data.
      operation.kind !== 'resource' &&
        !completion &&
        ownArguments !== null &&
        typeof ownArguments === 'object' &&
        !Array.isArray(ownArguments)
        ? (ownArguments as Record<string, unknown>)
        : args,
      callParams,
      operation.profile,
      (self) => createRequestContext(sdk, target, exchange, self, taskScope),
    );
    call.completion = completion;
    let value: unknown;
    try {
      // Input requests built during the call are checked against this module's policy.
      value = await operationScope.run({ policy: this.inputPolicy, call }, () =>
        handler(call, exchange.request, new McpHttpResponse(exchange.response)),
      );
    } catch (error) {
      // A cancelled task's method gave up as asked: nothing to report, the task is cancelled.
      if (taskScope?.signal.aborted) throw error;
      const failure = mapOperationError(error, operation.kind, target);
      if (failure.type === 'error') throw failure.error;
      // Only tools get tool-error results from the mapper.
      const toolError: CallToolResult = {
        content: [{ type: 'text', text: failure.message }],
        isError: true,
      };
      return { value: undefined, wire: toolError };
    }
    const where = `${operation.kind} "${clip(target)}"`;
    if (call.emitted) return { value, wire: toInputRequiredWire(call.emitted, where) };
    if (value instanceof McpInputRequiredResult) {
      const declaresInput =
        operation.profile.declarations.length > 0 ||
        operation.profile.stateMode !== McpRequestStateMode.NONE;
      this.logger.error(
        declaresInput
          ? `MCP ${where} produced an input-required result its own handler did not return in this call (an interceptor cached or replaced it); refused`
          : undeclaredInputMessage(call.context.method, target, value.inputRequests),
      );
      throw internalError();
    }
    return { value, wire: undefined, completionValues: call.completionValues };
  }

  /**
   * The request's params as the HTTP layer parsed them (`__proto__` and other keys stay plain
   * data), with input responses keeping their exact number text; the SDK's copy otherwise.
   */
  private callParams(
    exchange: HttpExchange,
    sdk: ServerContext,
    params: object,
  ): Record<string, unknown> {
    const own = ownRequestParams(exchange, sdk);
    if (!own) return params as Record<string, unknown>;
    return exchange.exactInputResponses === undefined
      ? own
      : { ...own, inputResponses: exchange.exactInputResponses };
  }
}
