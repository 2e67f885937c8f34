import { Inject, Injectable } from '@nestjs/common';
import { LosslessNumber } from 'lossless-json';
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
import { inputRequestPolicy, type InputRequestPolicy } from '../input/input-request-policy';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import type {
  RegisteredOperation,
  ResourceTemplateListing,
} from '../discovery/registered-operation.interface';
import { McpErrorCode } from '../errors/mcp-error-codes';
import type { McpCompleter } from '../interfaces/mcp-operation-options.interface';
import { clip } from './clip';
import { mapOperationError } from './operation-error.mapper';
import {
  normalizePromptResult,
  normalizeResourceResult,
  normalizeToolResult,
} from './operation-result.normalizer';
import { createRequestContext } from './request-context.factory';
import { toInputRequiredWire } from './input-required-wire';
import { CallRound } from './call-round';
import { httpExchangeStorage } from './http-exchange.storage';
import { McpInputRequiredResult } from '../input/mcp-input-required.result';

const MAX_COMPLETION_VALUES = 100;

/** Serves each MCP method from the operation registry, through the Nest pipeline. */
@Injectable()
export class McpDispatcher {
  private readonly inputPolicy: InputRequestPolicy;

  constructor(
    private readonly registry: McpOperationRegistry,
    @Inject(MCP_RESOLVED_OPTIONS) options: ResolvedMcpOptions,
  ) {
    this.inputPolicy = {
      secrets: options.elicitation.secretPolicy,
      development: options.elicitation.development,
    };
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
    const args = request.params.arguments ?? {};
    const outcome = await this.invoke(tool, args, sdk, name, request.params);
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
    if (!found) throw new ProtocolError(McpErrorCode.InvalidParams, 'Resource not found', { uri });
    const outcome = await this.invoke(found.resource, found.variables, sdk, uri, request.params);
    return (
      (outcome.wire as ReadResourceResult | undefined) ??
      normalizeResourceResult(outcome.value, uri, found.resource.metadata.options.mimeType)
    );
  }

  async complete(request: CompleteRequest, sdk: ServerContext): Promise<CompleteResult> {
    const { ref, argument } = request.params;
    const completers = this.completersFor(ref);
    const completer: McpCompleter | undefined = completers?.[argument.name];
    const values = completer
      ? await completer(argument.value, {
          arguments: request.params.context?.arguments ?? {},
          request: createRequestContext(sdk, 'name' in ref ? ref.name : ref.uri),
        })
      : [];
    return {
      completion: {
        values: values.slice(0, MAX_COMPLETION_VALUES),
        total: values.length,
        hasMore: values.length > MAX_COMPLETION_VALUES,
      },
    };
  }

  private completersFor(
    ref: CompleteRequest['params']['ref'],
  ): Record<string, McpCompleter> | undefined {
    if (ref.type === 'ref/prompt') {
      const prompt = this.registry.findPrompt(ref.name);
      if (!prompt)
        throw new ProtocolError(McpErrorCode.InvalidParams, `Unknown prompt: ${clip(ref.name)}`, {
          name: clip(ref.name),
        });
      return prompt.metadata.options.complete;
    }
    const template = this.registry.findTemplate(ref.uri);
    if (!template)
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        `Unknown resource template: ${clip(ref.uri)}`,
        { uri: clip(ref.uri) },
      );
    return template.metadata.options.complete;
  }

  private async invoke(
    operation: RegisteredOperation,
    args: Record<string, unknown>,
    sdk: ServerContext,
    target: string,
    params: object,
  ): Promise<{ value: unknown; wire: object | undefined }> {
    const round = new CallRound(
      this.exactParams(sdk, params),
      operation.declarations,
      operation.stateMode,
    );
    let value: unknown;
    try {
      // Input requests built during the call are checked against this module's policy.
      value = await inputRequestPolicy.run(this.inputPolicy, () =>
        operation.handler(args, createRequestContext(sdk, target, round)),
      );
    } catch (error) {
      const failure = mapOperationError(error, operation.kind, target);
      if (failure.type === 'error') throw failure.error;
      // Only tools get tool-error results from the mapper.
      const toolError: CallToolResult = {
        content: [{ type: 'text', text: failure.message }],
        isError: true,
      };
      return { value: undefined, wire: toolError };
    }
    if (!(value instanceof McpInputRequiredResult)) return { value, wire: undefined };
    return { value, wire: toInputRequiredWire(value, round, `${operation.kind} "${target}"`) };
  }

  /** The request's params with exact numbers, as the HTTP layer parsed them. */
  private exactParams(sdk: ServerContext, params: object): Record<string, unknown> {
    const body = httpExchangeStorage.getStore()?.losslessBody as
      { id?: unknown; params?: unknown } | undefined;
    const exact = body?.params;
    // The SDK reads numeric ids as numbers: `1.0` or `1e0` is request 1, not a different request.
    const bodyId = body?.id instanceof LosslessNumber ? Number(body.id.value) : body?.id;
    const sameRequest = body !== undefined && bodyId === sdk.mcpReq.id;
    return sameRequest && exact !== null && typeof exact === 'object'
      ? (exact as Record<string, unknown>)
      : (params as Record<string, unknown>);
  }
}
