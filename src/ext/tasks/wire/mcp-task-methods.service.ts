import { Injectable } from '@nestjs/common';
import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../../kit/errors/mcp-error-codes';
import { TaskCallers } from '../task-callers';
import { declaresTasks, tasksCapabilityMissing } from './tasks-capability';
import { McpTasksService, UNKNOWN_TASK_MESSAGE } from '../mcp-tasks.service';
import type { McpTaskRecord } from '../store/mcp-task.types';
import { detailedTask } from './tasks-wire';
import {
  McpOperationRegistry,
  captureTaskPrincipal,
  ownRequestParams,
  type HttpExchange,
} from '../../../extension-api';

type Params = Record<string, unknown>;

function isObject(value: unknown): value is Params {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `tasks/get`, `tasks/update` and `tasks/cancel`: each needs the tasks extension declared on the
 * request (-32021), and sees only tasks of the caller's own partition (any other id is -32602).
 * @internal
 */
@Injectable()
export class McpTaskMethods {
  constructor(
    private readonly tasks: McpTasksService,
    private readonly callers: TaskCallers,
    private readonly registry: McpOperationRegistry,
  ) {}

  async get(params: Params, sdk: ServerContext, exchange: HttpExchange): Promise<Params> {
    const { task } = await this.caller('tasks/get', sdk, exchange, params);
    return { resultType: 'complete', ...detailedTask(task) };
  }

  async update(params: Params, sdk: ServerContext, exchange: HttpExchange): Promise<Params> {
    const { task, partition } = await this.caller('tasks/update', sdk, exchange, params);
    // The SDK lifts `inputResponses` out of params; the HTTP layer's parse keeps them as sent,
    // their numbers as written.
    const own = ownRequestParams(exchange, sdk);
    const responses = own
      ? (exchange.exactInputResponses ?? own.inputResponses)
      : sdk.mcpReq.inputResponses;
    if (!isObject(responses))
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        'Invalid params: inputResponses must be an object',
      );
    const resumed = await this.tasks.update(
      task.taskId,
      partition,
      responses,
      captureTaskPrincipal(exchange),
    );
    // The resumed step runs on this request, which the partition check has just authorized.
    if (resumed) await this.tasks.resume(resumed, exchange);
    return { resultType: 'complete' };
  }

  async cancel(params: Params, sdk: ServerContext, exchange: HttpExchange): Promise<Params> {
    const { task, partition } = await this.caller('tasks/cancel', sdk, exchange, params);
    await this.tasks.cancel(task.taskId, partition);
    return { resultType: 'complete' };
  }

  /**
   * The task and the caller's partition, once the guards of the task's tool have run on this
   * request; another caller's task is -32602, as an unknown one.
   */
  private async caller(
    method: string,
    sdk: ServerContext,
    exchange: HttpExchange,
    params: Params,
  ): Promise<{ task: McpTaskRecord; partition: string }> {
    if (!declaresTasks(sdk)) throw tasksCapabilityMissing(method);
    const task = await this.tasks.lookup(params.taskId);
    const tool = this.registry.findTool(task.call.name);
    if (!tool) throw new ProtocolError(McpErrorCode.InvalidParams, UNKNOWN_TASK_MESSAGE);
    const partition = await this.callers.partitionOf(sdk, exchange, task.taskId, params, tool);
    return { task: this.tasks.owned(task, partition), partition };
  }
}
