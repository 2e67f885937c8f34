import { Injectable } from '@nestjs/common';
import type { CallToolRequest, ServerContext } from '@modelcontextprotocol/server';
import type { ToolEntry } from '../discovery/operation-entry.interface';
import type { McpJsonValue } from '../util/json-value';
import type { HttpExchange } from '../pipeline/http-exchange';
import { normalizeToolResult } from '../pipeline/operation-result.normalizer';
import { progressReporter } from '../pipeline/operation-context.factory';
import { answerOf, OperationRunner } from '../pipeline/operation-runner';
import { callParamsOf, ownArguments, ownRequestParams } from '../pipeline/own-request-params';
import type { McpTaskContext } from '../interfaces/mcp-task-context.interface';
import type { McpTaskRecord } from './store/mcp-task.types';
import { declaresTasks, tasksCapabilityMissing } from './wire/tasks-capability';
import { exactJsonOf, initialState, progressMessage, stepOutcome, storedCall } from './task-call';
import { captureTaskPrincipal, type TaskPrincipal } from '../identity/task-principal';
import { McpTasksService } from './mcp-tasks.service';
import { createTaskResult } from './wire/tasks-wire';
import { TaskCallers } from './task-callers';
import { boundedAnswerForms } from './task-answers';

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
  ) {}

  /**
   * Serves a `tools/call` of a task-supporting tool as a task, or answers `undefined` for a
   * synchronous run (`optional` support without the extension).
   */
  async callTool(
    tool: ToolEntry,
    request: CallToolRequest,
    sdk: ServerContext,
    exchange: HttpExchange,
  ): Promise<Record<string, unknown> | undefined> {
    if (!declaresTasks(sdk)) {
      if (tool.task.support === 'required') throw tasksCapabilityMissing(`Tool "${tool.name}"`);
      return undefined;
    }
    const params = ownRequestParams(exchange, sdk) ?? (request.params as Record<string, unknown>);
    const partition = await this.callers.partitionOf(sdk, exchange, tool.name, params, tool);
    const principal = captureTaskPrincipal(exchange);
    // What the task will keep is checked before anything runs: no refusal after a side effect.
    const limits = this.tasks.options;
    const call = storedCall(tool.name, params, limits.maxCallBytes);
    // Answers sent with the creating call keep their exact numbers, as in any other round.
    const answers = exactJsonOf(exchange.exactInputResponses ?? params.inputResponses);
    boundedAnswerForms(answers, limits.maxInputResponseBytes);
    if (tool.task.creation === 'deferred')
      return this.deferred(tool, request, sdk, exchange, partition, call, answers, principal);
    const task = await this.tasks.create(
      partition,
      call,
      tool.task.ttlMs,
      answers,
      initialState(params),
      principal,
    );
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
