import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ResolvedMcpOptions } from '../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../mcp-resolved-options.token';
import {
  ProtocolError,
  type CallToolRequest,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { McpHttpResponse } from '../pipeline/mcp-http-response';
import { mapOperationError } from '../pipeline/operation-error.mapper';
import { ownRequestParams } from '../pipeline/own-request-params';
import type { RegisteredTool } from '../discovery/registered-operation.interface';
import { internalError } from '../errors/internal-error';
import type { McpJsonValue } from '../util/json-value';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { httpExchangeStorage, type HttpExchange } from '../pipeline/http-exchange.storage';
import { McpOperationCall, type OperationCallProfile } from '../pipeline/mcp-operation-call';
import {
  createRequestContext,
  progressReporter,
  type TaskCallScope,
} from '../pipeline/request-context.factory';
import { McpRequestStateMode } from '../input/mcp-request-state-mode.enum';
import { PartitionResolverDelegate } from '../identity/partition-resolver.delegate';
import type { McpTaskContext } from '../interfaces/mcp-task-context.interface';
import type { McpTaskRecord } from './store/mcp-task.types';
import { declaresTasks, tasksCapabilityMissing } from './wire/tasks-capability';
import { exactJsonOf, initialState, progressMessage, stepOutcome, storedCall } from './task-call';
import { envelopeContext } from '../pipeline/envelope-context';
import { detachedStepExchange } from '../identity/detached-task-step';
import { captureTaskPrincipal, type TaskPrincipal } from '../identity/task-principal';
import { McpTasksService } from './mcp-tasks.service';
import { createTaskResult } from './wire/tasks-wire';
import type { TaskStepOutcome, TaskStepScope } from './runner/task-step-outcome';
import { exactAnswersOf } from './task-answers';

/** One run of a tool through its pipeline (the dispatcher's). */
export type ToolRun = (
  tool: RegisteredTool,
  sdk: ServerContext,
  params: CallToolRequest['params'],
  scope?: TaskCallScope & { readonly exactParams?: Record<string, unknown> },
) => Promise<CallToolResult>;

const NO_PROFILE: OperationCallProfile = {
  declarations: [],
  stateMode: McpRequestStateMode.NONE,
  singleUse: false,
  replay: false,
  argumentsValidator: undefined,
};

/**
 * Tool calls as tasks: decides whether a call becomes one, creates it (before the handler runs,
 * or when the handler calls `ctx.task.start()`), and runs its later steps — each a full run of the
 * operation through its pipeline with the task's arguments, every answer so far and the state the
 * last step emitted — on the HTTP request that created or resumed it.
 * @internal
 */
@Injectable()
export class McpTaskCalls {
  private readonly logger = new Logger('McpTasks');
  private run: ToolRun | undefined;
  /** The request a scheduled step runs on, until the step starts. */
  private readonly pending = new Map<string, HttpExchange>();

  constructor(
    private readonly tasks: McpTasksService,
    private readonly registry: McpOperationRegistry,
    private readonly partitions: PartitionResolverDelegate,
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
  ) {
    tasks.attachExecutor((task, scope) => this.runStep(task, scope));
  }

  attach(run: ToolRun): void {
    this.run = run;
  }

  /**
   * Serves a `tools/call` of a task-supporting tool as a task, or answers `undefined` for a
   * synchronous run (`optional` support without the extension).
   */
  async callTool(
    tool: RegisteredTool,
    request: CallToolRequest,
    sdk: ServerContext,
  ): Promise<Record<string, unknown> | undefined> {
    if (!declaresTasks(sdk)) {
      if (tool.task.support === 'required') throw tasksCapabilityMissing(`Tool "${tool.name}"`);
      return undefined;
    }
    const exchange = this.exchange();
    const params = ownRequestParams(exchange, sdk) ?? (request.params as Record<string, unknown>);
    const partition = await this.partitionOf(sdk, exchange, tool.name, params, tool);
    const principal = captureTaskPrincipal(exchange);
    const call = storedCall(tool.name, params);
    // Answers sent with the creating call keep their exact numbers, as in any other round.
    const answers = exactJsonOf(exchange.exactInputResponses ?? params.inputResponses);
    if (tool.task.creation === 'deferred')
      return this.deferred(tool, sdk, params, partition, call, answers, principal);
    const task = await this.tasks.create(
      partition,
      call,
      tool.task.ttlMs,
      answers,
      initialState(params),
      principal,
    );
    this.pending.set(task.taskId, exchange);
    await this.tasks.schedule(task.taskId);
    return createTaskResult(task);
  }

  /** Runs the method in this request until it calls `ctx.task.start()` or answers. */
  private async deferred(
    tool: RegisteredTool,
    sdk: ServerContext,
    params: Record<string, unknown>,
    partition: string,
    call: McpTaskRecord['call'],
    answers: Record<string, McpJsonValue>,
    principal: TaskPrincipal | undefined,
  ): Promise<Record<string, unknown> | undefined> {
    const controller = new AbortController();
    const onRequestAbort = () => controller.abort();
    sdk.mcpReq.signal.addEventListener('abort', onRequestAbort, { once: true });
    let created: (task: McpTaskRecord) => void = () => undefined;
    const creation = new Promise<McpTaskRecord>((resolve) => (created = resolve));
    const tasks = this.tasks;
    const task: McpTaskContext & { id: string | undefined } = {
      id: undefined,
      async start() {
        if (task.id !== undefined) return;
        // A client that went away gets no task it cannot learn about.
        if (controller.signal.aborted) throw new Error('The request ended before the task started');
        const record = await tasks.create(
          partition,
          call,
          tool.task.ttlMs,
          answers,
          undefined,
          principal,
        );
        task.id = record.taskId;
        // From now on the task's cancel, not the client going away, stops the method.
        sdk.mcpReq.signal.removeEventListener('abort', onRequestAbort);
        created(record);
      },
    };
    const onRequest = progressReporter(sdk);
    const step = this.requireRun()(tool, sdk, params as CallToolRequest['params'], {
      task,
      signal: controller.signal,
      // On the request's stream until the task exists, as the task's status message after.
      progress: {
        get enabled() {
          return task.id !== undefined || onRequest.enabled;
        },
        report: (progress, total, message) =>
          task.id === undefined
            ? onRequest.report(progress, total, message)
            : tasks.progress(task.id, progressMessage(progress, total, message)),
      },
    });
    const first = await Promise.race([
      step.then((result) => ({ result })),
      creation.then((record) => ({ record })),
    ]);
    if ('result' in first && task.id === undefined) {
      sdk.mcpReq.signal.removeEventListener('abort', onRequestAbort);
      return first.result as Record<string, unknown>;
    }
    const record = 'record' in first ? first.record : await creation;
    this.tasks.adoptInRequestStep(record.taskId, controller, step.then(stepOutcome));
    return createTaskResult(record);
  }

  /** Remembers the request a resumed task's next step runs on. */
  resumeOn(taskId: string, exchange: HttpExchange): void {
    this.pending.set(taskId, exchange);
  }

  /** One later step of a task, as the runner asks for it. */
  private async runStep(task: McpTaskRecord, scope: TaskStepScope): Promise<TaskStepOutcome> {
    // Away from the request that created or resumed the task (another instance holds it), the
    // step runs detached: as the principal and partition the task kept.
    const exchange =
      this.pending.get(task.taskId) ?? detachedStepExchange(task, this.options.endpoint);
    this.pending.delete(task.taskId);
    const tool = this.registry.findTool(task.call.name);
    if (!tool) {
      this.logger.error(`Task ${task.taskId} cannot run here: its tool is not known`);
      return {
        kind: 'failed',
        error: { code: McpErrorCode.InternalError, message: 'Internal error' },
      };
    }
    const params: Record<string, unknown> = { ...task.call.params };
    const answers = exactAnswersOf(task);
    if (Object.keys(answers).length > 0) params.inputResponses = answers;
    if (task.requestState !== undefined) params.requestState = task.requestState;
    const sdk = envelopeContext(
      `${task.taskId}#${task.runs}`,
      'tools/call',
      params._meta,
      scope.signal,
    );
    const taskContext: McpTaskContext = { id: task.taskId, start: () => Promise.resolve() };
    const wire = await httpExchangeStorage.run(exchange, () =>
      this.requireRun()(tool, sdk, params as CallToolRequest['params'], {
        task: taskContext,
        signal: scope.signal,
        exactParams: params,
        progress: {
          enabled: true,
          report: (progress, total, message) =>
            scope.progress(progressMessage(progress, total, message)),
        },
      }),
    );
    return stepOutcome(wire);
  }

  private requireRun(): ToolRun {
    if (!this.run) throw internalError();
    return this.run;
  }

  private exchange(): HttpExchange {
    const exchange = httpExchangeStorage.getStore();
    if (!exchange) {
      this.logger.error('A task was requested outside an HTTP exchange');
      throw internalError();
    }
    return exchange;
  }

  /**
   * The caller's authorization partition, as request state binds it — after `tool`'s guards, when
   * given, have run on this request (a passport-style guard sets `req.user` there). A guard that
   * refuses answers as it would for a call of the tool.
   */
  async partitionOf(
    sdk: ServerContext,
    exchange: HttpExchange,
    target: string,
    params: Record<string, unknown>,
    tool?: RegisteredTool,
  ): Promise<string> {
    const call = new McpOperationCall('operation', {}, params, NO_PROFILE, (self) =>
      createRequestContext(sdk, target, exchange, self),
    );
    if (tool?.guardsHandler) {
      try {
        await tool.guardsHandler(call, exchange.request, new McpHttpResponse(exchange.response));
      } catch (error) {
        const failure = mapOperationError(error, 'tool', tool.name);
        throw failure.type === 'error'
          ? failure.error
          : new ProtocolError(McpErrorCode.Forbidden, 'Forbidden');
      }
    }
    return this.partitions.resolve(call.context);
  }
}
