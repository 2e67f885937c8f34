import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { Injectable } from '@nestjs/common';
import type { CallToolRequest, ServerContext } from '@modelcontextprotocol/server';
import type { McpJsonValue } from '../../kit/json-value';
import type { McpTaskRecord } from './store/mcp-task.types';
import { declaresTasks, tasksCapabilityMissing } from './wire/tasks-capability';
import { exactJsonOf, initialState, progressMessage, stepOutcome, storedCall } from './task-call';
import { McpTasksService } from './mcp-tasks.service';
import { createTaskResult } from './wire/tasks-wire';
import { TaskCallers } from './task-callers';
import { boundedAnswerForms } from './task-answers';
import {
  McpTelemetry,
  OperationRunner,
  answerOf,
  callParamsOf,
  captureTaskPrincipal,
  newFlowId,
  normalizeToolResult,
  ownArguments,
  ownRequestParams,
  progressReporter,
  type HttpExchange,
  type McpOperationContext,
  type McpTaskContext,
  type ObservedCall,
  type TaskPrincipal,
  type ToolEntry,
} from '../../extension-api';

/**
 * Tool calls as tasks: decides whether a call becomes one and creates it (before the handler
 * runs, or when the handler calls `ctx.task.start()`); its later steps run on the request that
 * created or resumed it (`TaskStepExecutor`).
 * @internal
 */
@Injectable()
export class McpTaskCalls {
  constructor(
    private readonly tasks: McpTasksService,
    private readonly runner: OperationRunner,
    private readonly callers: TaskCallers,
    private readonly telemetry: McpTelemetry,
  ) {}

  /** Whether this request of `tool` becomes a task (or is refused for not declaring the extension). */
  takes(tool: ToolEntry, sdk: ServerContext): boolean {
    return tool.task.support === 'required' || declaresTasks(sdk);
  }

  /**
   * Serves a `tools/call` of a task-supporting tool as a task, or answers `undefined` for a
   * synchronous run (`optional` support without the extension). `caller` is what the tool's
   * guards made of this request: the task belongs to its partition.
   */
  async callTool(
    tool: ToolEntry,
    request: CallToolRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
    caller: McpOperationContext,
  ): Promise<Record<string, unknown> | undefined> {
    if (!declaresTasks(sdk)) {
      if (tool.task.support === 'required') throw tasksCapabilityMissing(`Tool "${tool.name}"`);
      return undefined;
    }
    const params = ownRequestParams(exchange, sdk) ?? (request.params as Record<string, unknown>);
    const partition = await this.callers.partitionFrom(caller);
    const principal = captureTaskPrincipal(exchange);
    // What the task will keep is checked before anything runs: no refusal after a side effect.
    const limits = this.tasks.options;
    const call = storedCall(tool.name, params, limits.maxCallBytes, tool.profile.definition);
    // Answers sent with the creating call keep their exact numbers, as in any other round.
    const answers = exactJsonOf(exchange.exactInputResponses ?? params.inputResponses);
    boundedAnswerForms(answers, limits.maxInputResponseBytes);
    // The task is a flow of its own, begun by this request: every step continues it.
    const flowId = newFlowId();
    if (tool.task.creation === 'deferred')
      return this.deferred(tool, request, sdk, exchange, partition, call, answers, principal, {
        id: flowId,
      });
    // The creating request runs no operation here, so its span is made here.
    const observation = this.telemetry.observing()
      ? this.telemetry.begin(creatingCallOf(tool.name, sdk, exchange, params))
      : undefined;
    const work = async () => {
      const trace = this.telemetry.activeTrace();
      return this.tasks.create(
        partition,
        call,
        tool.task.ttlMs,
        answers,
        initialState(params),
        principal,
        trace === undefined ? { id: flowId } : { id: flowId, trace },
      );
    };
    let task: McpTaskRecord;
    try {
      task = await (observation ? observation.within(work) : work());
    } catch (error) {
      observation?.end({
        outcome: 'error',
        flowId,
        round: 1,
        errorType: String((error as { code?: unknown }).code ?? McpErrorCode.InternalError),
      });
      throw error;
    }
    observation?.end({ outcome: 'complete', flowId, round: 1 });
    await this.tasks.start(task, exchange);
    return createTaskResult(task);
  }

  /** Runs the method in this request until it calls `ctx.task.start()` or answers. */
  private async deferred(
    tool: ToolEntry,
    request: CallToolRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
    partition: string,
    call: McpTaskRecord['call'],
    answers: Record<string, McpJsonValue>,
    principal: TaskPrincipal | undefined,
    origin: { readonly id: string },
  ): Promise<Record<string, unknown> | undefined> {
    const telemetry = this.telemetry;
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
          // Inside the creating request's run: its span is the active one, when traced.
          { ...origin, ...definedTrace(telemetry.activeTrace()) },
        );
        task.id = record.taskId;
        // From now on the task's cancel, not the client going away, stops the method.
        sdk.mcpReq.signal.removeEventListener('abort', onRequestAbort);
        created(record);
      },
    };
    const onRequest = progressReporter(sdk);
    const params = callParamsOf(exchange, sdk, request.params);
    const step = this.runner
      .run({
        operation: tool,
        target: tool.name,
        params,
        args: ownArguments(params) ?? {},
        http: exchange,
        sdk,
        task: {
          task,
          flowId: origin.id,
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
        },
      })
      .then((outcome) =>
        answerOf(outcome, (value) =>
          normalizeToolResult(value, tool.listing.outputSchema !== undefined),
        ),
      );
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
}

function definedTrace(trace: string | undefined): { trace?: string } {
  return trace === undefined ? {} : { trace };
}

/** The creating request of an immediate task, as its span shows it. */
function creatingCallOf(
  name: string,
  sdk: ServerContext,
  exchange: HttpExchange,
  params: Record<string, unknown>,
): ObservedCall {
  const envelope = (params._meta ?? {}) as Record<string, unknown>;
  const version = envelope['io.modelcontextprotocol/protocolVersion'];
  return {
    kind: 'tool',
    method: 'tools/call',
    target: name,
    requestId: sdk.mcpReq.id,
    protocolVersion: typeof version === 'string' ? version : undefined,
    meta: params._meta,
    headers: exchange.request.headers,
    clientAddress: exchange.request.ip ?? exchange.raw?.socket?.remoteAddress,
    claimedFlowTrace: undefined,
    claimedRound: 0,
    sessionId: (sdk as { sessionId?: string }).sessionId,
  };
}
