import { Injectable, Logger } from '@nestjs/common';
import {
  ProtocolError,
  type CallToolRequest,
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptRequest,
  type GetPromptResult,
  type ReadResourceRequest,
  type ReadResourceResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { ListedItems, ListingPage, ListKind } from '../../operations/discovery/listing-page';
import { McpListings } from '../../operations/discovery/mcp-listings.service';
import { McpOperationRegistry } from '../../operations/discovery/mcp-operation.registry';
import type { ListedOperation, PagedListing } from '../../operations/discovery/paged-listing';
import type { OperationEntry } from '../../operations/discovery/operation-entry.interface';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { OperationHiddenError } from '../../kit/errors/operation-hidden.error';
import type { HttpExchange } from '../../pipeline/http-exchange';
import {
  answerOf,
  OperationRunner,
  type OperationOutcome,
  type OperationRunInput,
  type RunnableOperation,
} from '../../pipeline/operation-runner';
import {
  normalizePromptResult,
  normalizeResourceResult,
  normalizeToolResult,
} from '../../pipeline/operation-result.normalizer';
import { callParamsOf, ownArguments } from '../../pipeline/own-request-params';
import { DivertedCall, McpCallDiverts } from './call-divert';
import { completionResult } from './completion-result';
import { McpOperationVisibility } from './operation-visibility';
import { McpResourceReaders } from './resource-readers';
import { clip } from '../../kit/clip';
import type { MaybePromise } from '../../kit/maybe-promise';
import { resourceNotFound, unknownOperation as unknown } from './unknown-operation';
import { McpCoreEvents } from '../../options/mcp-core-events';
import { CallerPartitions } from '../../auth/identity/caller-partitions';
import { UnknownTargets } from './unknown-target.events';

/**
 * How a call is run: once through the runner (the default), or by an entry point that runs it
 * again while it asks for input (a 2025-era session asks its client in between).
 * @internal
 */
export type OperationRun = (input: OperationRunInput) => Promise<OperationOutcome>;

/**
 * How an entry point has a call served: who runs it, and whether an extension may divert it.
 * @internal
 */
export interface CallVia {
  /** Runs the call (default: once through the runner). */
  readonly run?: OperationRun;
  /**
   * Whether a registered divert may take the call (default true). A 2025-era session says no:
   * its client gets 2025 semantics whatever 2026 extensions it declares.
   */
  readonly divert?: boolean;
}

/**
 * The method table: serves each MCP operation method from the operation registry, running the
 * operation through the {@link OperationRunner}. Both the fast path and the SDK path call it, each
 * with the HTTP exchange the request came on.
 * @internal
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpModule');
  private readonly runOnce: OperationRun = (input) => this.runner.run(input);

  constructor(
    private readonly registry: McpOperationRegistry,
    private readonly listings: McpListings,
    private readonly runner: OperationRunner,
    /** The extensions' diverts of `tools/call` (the tasks extension's). */
    readonly diverts: McpCallDiverts,
    private readonly visibility: McpOperationVisibility,
    /** Extensions' own resources (skill files), read when no operation serves a URI. */
    private readonly readers: McpResourceReaders,
    coreEvents: McpCoreEvents,
    partitions: CallerPartitions,
  ) {
    this.unknowns = new UnknownTargets(coreEvents, partitions);
  }

  private readonly unknowns: UnknownTargets;

  /** The page `cursor` points at of one of the four lists, of what this caller may see. */
  list<K extends ListKind>(
    kind: K,
    cursor: string | undefined,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): MaybePromise<ListingPage<ListedItems[K]>> {
    // Each list's entries list items of its kind: the union the index gives is narrowed here.
    const listing = this.listings.current()[kind] as unknown as PagedListing<
      ListedItems[K],
      RunnableOperation & ListedOperation<ListedItems[K]>
    >;
    return this.visibility.page(listing, cursor, sdk, exchange);
  }

  /**
   * A `tools/call`: run through the runner, or diverted by an extension (a task). A divert is asked
   * only once the tool's guards let the caller through (`McpOperationVisibility.authorizeTool`).
   */
  async callTool(
    request: CallToolRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
    via: CallVia = {},
  ): Promise<CallToolResult> {
    const { name } = request.params;
    const tool = this.registry.findTool(name);
    if (!tool) throw this.unknowns.refuse('tool', name, request.params.arguments, sdk, exchange);
    const divert = via.divert === false ? undefined : this.diverts.for(tool, sdk);
    if (divert) {
      const caller = await this.visibility.authorizeTool(tool, sdk, exchange);
      const diverted = await divert.divert(tool, request, sdk, exchange, caller);
      if (diverted) return new DivertedCall(diverted) as unknown as CallToolResult;
    }
    const input = namedCall(tool, tool.name, request.params, sdk, exchange);
    const outcome = await (via.run ?? this.runOnce)(input);
    if (await this.visibility.hidden(outcome, input)) throw unknown('tool', name);
    return answerOf(outcome, (value) =>
      normalizeToolResult(value, tool.listing.outputSchema !== undefined),
    );
  }

  async getPrompt(
    request: GetPromptRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
    via: CallVia = {},
  ): Promise<GetPromptResult> {
    const { name } = request.params;
    const prompt = this.registry.findPrompt(name);
    if (!prompt)
      throw this.unknowns.refuse('prompt', name, request.params.arguments, sdk, exchange);
    const input = namedCall(prompt, name, request.params, sdk, exchange);
    const outcome = await (via.run ?? this.runOnce)(input);
    if (await this.visibility.hidden(outcome, input)) throw unknown('prompt', name);
    return answerOf(outcome, normalizePromptResult);
  }

  async readResource(
    request: ReadResourceRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
    via: CallVia = {},
  ): Promise<ReadResourceResult> {
    const { uri } = request.params;
    const found = this.registry.findResource(uri);
    if (!found) return this.readers.read(uri, sdk, exchange);
    const input: OperationRunInput = {
      operation: found.resource,
      target: uri,
      params: callParamsOf(exchange, sdk, request.params),
      args: found.variables,
      http: exchange,
      sdk,
    };
    const outcome = await (via.run ?? this.runOnce)(input);
    if (await this.visibility.hidden(outcome, input)) throw resourceNotFound(uri);
    return answerOf(outcome, (value) =>
      normalizeResourceResult(value, uri, found.resource.metadata.options.mimeType),
    );
  }

  /** Completion runs under the guards, interceptors and filters of the prompt or template it serves. */
  async complete(
    request: CompleteRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<CompleteResult> {
    const { ref, argument } = request.params;
    const operation = this.completionTarget(ref);
    const target = ref.type === 'ref/prompt' ? ref.name : ref.uri;
    const outcome = await this.runner.complete(
      {
        operation,
        target,
        params: callParamsOf(exchange, sdk, request.params),
        args: request.params.context?.arguments ?? {},
        http: exchange,
        sdk,
      },
      { argument: argument.name, value: argument.value },
    );
    // What a visibility predicate hides completes as nothing anybody serves.
    if (outcome.kind === 'error' && outcome.error instanceof OperationHiddenError)
      throw ref.type === 'ref/prompt' ? unknown('prompt', ref.name) : unknownTemplate(ref.uri);
    return completionResult(
      answerOf(outcome, (value) => value),
      target,
      this.logger,
    );
  }

  private completionTarget(ref: CompleteRequest['params']['ref']): OperationEntry {
    if (ref.type === 'ref/prompt') {
      const prompt = this.registry.findPrompt(ref.name);
      if (!prompt) throw unknown('prompt', ref.name);
      return prompt;
    }
    const template = this.registry.findTemplate(ref.uri);
    if (!template) throw unknownTemplate(ref.uri);
    return template;
  }
}

/**
 * The runner's input of a call by name (`tools/call`, `prompts/get`): the request's params as its
 * entry point read them, and their own arguments (as the client wrote them), else the SDK's.
 */
function namedCall(
  operation: RunnableOperation,
  target: string,
  requestParams: { readonly arguments?: Record<string, unknown> },
  sdk: ServerContext,
  exchange: HttpExchange,
): OperationRunInput {
  const params = callParamsOf(exchange, sdk, requestParams);
  return {
    operation,
    target,
    params,
    args: ownArguments(params) ?? requestParams.arguments ?? {},
    http: exchange,
    sdk,
  };
}

function unknownTemplate(uri: string): ProtocolError {
  return new ProtocolError(McpErrorCode.InvalidParams, `Unknown resource template: ${clip(uri)}`, {
    uri: clip(uri),
  });
}
