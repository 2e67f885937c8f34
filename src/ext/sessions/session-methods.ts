import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  ProtocolError,
  specTypeSchemas,
  type CallToolRequest,
  type CompleteRequest,
  type GetPromptRequest,
  type ReadResourceRequest,
} from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { clip } from '../../kit/clip';
import { SessionInputRounds } from './calls/session-input-rounds';
import type { SessionRequest } from './calls/session-request';
import { McpSessions } from './mcp-sessions.service';
import { SESSION_OPTIONS, type SessionOptions } from './session.options';
import { SessionTasks } from './tasks/session-tasks';
import { sessionBytes } from './store/session-bytes';
import {
  McpDispatcher,
  McpMethodTable,
  McpOperationRegistry,
  McpOperationVisibility,
  listResultOf,
  type ListKind,
  type OperationRun,
} from '../../extension-api';

type Params = Record<string, unknown>;
type SchemaName =
  | 'SetLevelRequest'
  | 'SubscribeRequest'
  | 'UnsubscribeRequest'
  | 'GetTaskRequest'
  | 'GetTaskPayloadRequest'
  | 'CancelTaskRequest'
  | 'ListTasksRequest';

/** Longest resource URI a session may subscribe to, in characters. */
const MAX_SUBSCRIPTION_URI = 2_048;

/** The SDK's schema a request must pass, for the methods whose params nothing else checks. */
function checked(request: SessionRequest, schema: SchemaName): Params {
  const { method, params } = request.message;
  const outcome = specTypeSchemas[schema]['~standard'].validate({ method, params });
  if (outcome instanceof Promise || outcome.issues)
    throw new ProtocolError(McpErrorCode.InvalidParams, 'Invalid params');
  return (params ?? {}) as Params;
}

/** A list request's cursor: a string, or none; anything else is -32602 like the SDK path answers it. */
function cursorOf(params: Params): string | undefined {
  const { cursor } = params;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== 'string')
    throw new ProtocolError(McpErrorCode.InvalidParams, 'Invalid params');
  return cursor;
}

/**
 * The methods of a 2025-era session: the operations of the registry through the dispatcher (calls
 * that ask for input through {@link SessionInputRounds}), the session's own state (log level,
 * resource subscriptions), `ping`, 2025-11-25 tasks, and the methods extensions added for this era
 * too (the method table's legacy entries: `skills/list`…). Anything else is -32601.
 * @internal
 */
@Injectable()
export class SessionMethods {
  constructor(
    private readonly dispatcher: McpDispatcher,
    private readonly visibility: McpOperationVisibility,
    private readonly registry: McpOperationRegistry,
    private readonly rounds: SessionInputRounds,
    /** Absent when the tasks extension is off: then no tool runs as a 2025-11-25 task. */
    @Optional() @Inject(SessionTasks) private readonly tasks: SessionTasks | undefined,
    private readonly sessions: McpSessions,
    @Inject(SESSION_OPTIONS) private readonly options: SessionOptions,
    private readonly methods: McpMethodTable,
  ) {}

  /** Whether any tool can run as a 2025-11-25 task (the `tasks` capability then). */
  servesTasks(): boolean {
    return (
      this.tasks !== undefined &&
      this.registry
        .getTools()
        .some((tool) => tool.task.support !== 'forbidden' && tool.task.creation !== 'deferred')
    );
  }

  /** The request's result; a refusal throws its `ProtocolError`. */
  async serve(request: SessionRequest): Promise<unknown> {
    const message = request.message;
    const params = (message.params ?? {}) as Params;
    const run: OperationRun = (input) => this.rounds.run(input, request.channel);
    switch (message.method) {
      case 'ping':
        return {};
      case 'logging/setLevel':
        return this.setLevel(request);
      case 'resources/subscribe':
        return this.subscribe(request, checked(request, 'SubscribeRequest').uri as string, true);
      case 'resources/unsubscribe':
        return this.subscribe(request, checked(request, 'UnsubscribeRequest').uri as string, false);
      case 'tools/list':
        return this.listTools(request, cursorOf(params));
      case 'prompts/list':
        return this.listed('prompts', request, cursorOf(params));
      case 'resources/list':
        return this.listed('resources', request, cursorOf(params));
      case 'resources/templates/list':
        return this.listed('resourceTemplates', request, cursorOf(params));
      case 'tools/call':
        return this.callTool(request, params, run);
      case 'prompts/get':
        return this.dispatcher.getPrompt(
          message as unknown as GetPromptRequest,
          request.sdk(),
          request.exchange,
          { run },
        );
      case 'resources/read':
        return this.dispatcher.readResource(
          message as unknown as ReadResourceRequest,
          request.sdk(),
          request.exchange,
          { run },
        );
      case 'completion/complete':
        return this.dispatcher.complete(
          message as unknown as CompleteRequest,
          request.sdk(),
          request.exchange,
        );
      case 'tasks/get':
        return this.taskMethods().get(checked(request, 'GetTaskRequest'), request);
      case 'tasks/result':
        return this.taskMethods().result(checked(request, 'GetTaskPayloadRequest'), request);
      case 'tasks/cancel':
        return this.taskMethods().cancel(checked(request, 'CancelTaskRequest'), request);
      case 'tasks/list':
        checked(request, 'ListTasksRequest');
        return this.taskMethods().list(request);
      default:
        return this.extensionMethod(request, message.method, params);
    }
  }

  /** A method an extension added for 2025-era clients too; -32601 for any other. */
  private extensionMethod(request: SessionRequest, method: string, params: Params): unknown {
    const handler = this.methods.legacy(method);
    if (!handler) throw new ProtocolError(McpErrorCode.MethodNotFound, 'Method not found');
    return handler(params, request.sdk(), request.exchange);
  }

  /** The 2025-11-25 task methods, or -32601 when the tasks extension is off. */
  private taskMethods(): SessionTasks {
    if (!this.tasks) throw new ProtocolError(McpErrorCode.MethodNotFound, 'Method not found');
    return this.tasks;
  }

  /** A page of one of the other lists, as the 2026-07-28 paths answer it. */
  private async listed(
    kind: ListKind,
    request: SessionRequest,
    cursor: string | undefined,
  ): Promise<Params> {
    return listResultOf(
      kind,
      await this.dispatcher.list(kind, cursor, request.sdk(), request.exchange),
    );
  }

  /** The tools, with 2025-11-25's `execution.taskSupport` where a tool can run as a task. */
  private async listTools(request: SessionRequest, cursor: string | undefined): Promise<Params> {
    const page = await this.dispatcher.list('tools', cursor, request.sdk(), request.exchange);
    return listResultOf('tools', {
      ...page,
      items: page.items.map((listing) => {
        const tool = this.registry.findTool(listing.name);
        return !this.tasks ||
          !tool ||
          tool.task.support === 'forbidden' ||
          tool.task.creation === 'deferred'
          ? listing
          : { ...listing, execution: { taskSupport: tool.task.support } };
      }),
    });
  }

  /**
   * A tool call with 2025-11-25 semantics: a task only when `params.task` asks for one, whatever
   * 2026 extensions the client declared. A tool the caller's lists hide answers as an unknown one
   * before anything task-specific is said about it.
   */
  private async callTool(
    request: SessionRequest,
    params: Params,
    run: OperationRun,
  ): Promise<unknown> {
    const tool = this.registry.findTool(String(params.name));
    const asTask = params.task !== undefined && params.task !== null;
    if (tool && (asTask || tool.task.support === 'required')) {
      // What a call of the tool would answer a caller its guards refuse (hidden: unknown tool).
      await this.visibility.authorizeTool(tool, request.sdk(), request.exchange);
      if (asTask) return this.taskMethods().callTool(tool, request);
      throw new ProtocolError(
        McpErrorCode.MethodNotFound,
        `Tool "${clip(tool.name)}" runs only as a task: call it with params.task`,
      );
    }
    return this.dispatcher.callTool(
      request.message as unknown as CallToolRequest,
      request.sdk(),
      request.exchange,
      { run, divert: false },
    );
  }

  private async setLevel(request: SessionRequest): Promise<Params> {
    const { level } = checked(request, 'SetLevelRequest') as { level: string };
    await this.sessions.change(request.session, (current) =>
      current.logLevel === level ? undefined : { ...current, logLevel: level },
    );
    return {};
  }

  private async subscribe(request: SessionRequest, uri: string, on: boolean): Promise<Params> {
    if (on && uri.length > MAX_SUBSCRIPTION_URI)
      throw new ProtocolError(McpErrorCode.InvalidParams, 'Invalid params: uri too long', {
        maxUriLength: MAX_SUBSCRIPTION_URI,
      });
    await this.sessions.change(request.session, (current) => {
      const has = current.subscriptions.includes(uri);
      if (has === on) return undefined;
      if (on && current.subscriptions.length >= this.options.maxSubscriptions)
        throw new ProtocolError(
          McpErrorCode.InvalidParams,
          'Invalid params: too many subscriptions',
          {
            maxSubscriptions: this.options.maxSubscriptions,
          },
        );
      // The session's bytes bound what every session holds together (sessions.maxSessionBytes).
      if (on && sessionBytes(current) + uri.length + 3 > this.options.maxSessionBytes)
        throw new ProtocolError(
          McpErrorCode.InvalidParams,
          'Invalid params: the session holds too many subscribed bytes',
          { maxSessionBytes: this.options.maxSessionBytes },
        );
      return {
        ...current,
        subscriptions: on
          ? [...current.subscriptions, uri]
          : current.subscriptions.filter((subscribed) => subscribed !== uri),
      };
    });
    return {};
  }
}
