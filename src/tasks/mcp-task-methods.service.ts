import { Injectable } from '@nestjs/common';
import { ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import { internalError } from '../errors/internal-error';
import { McpErrorCode } from '../errors/mcp-error-codes';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import { httpExchangeStorage } from '../protocol/http-exchange.storage';
import { ownRequestParams } from '../protocol/own-request-params';
import { McpTaskCalls } from './mcp-task-calls.service';
import { declaresTasks, tasksCapabilityMissing } from './tasks-capability';
import { McpTasksService, UNKNOWN_TASK_MESSAGE } from './mcp-tasks.service';
import { captureTaskPrincipal } from './task-principal';
import { detailedTask } from './tasks-wire';

type Params = Record<string, unknown>;

/** Params of the `tasks/*` methods are checked by the handlers, after the capability gate. */
export const ANY_PARAMS = {
  '~standard': {
    version: 1 as const,
    vendor: 'nestjs-mcp',
    validate: (value: unknown) => ({ value: value as Params }),
    types: undefined as unknown as { readonly input: unknown; readonly output: Params },
  },
};

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
    private readonly calls: McpTaskCalls,
    private readonly registry: McpOperationRegistry,
  ) {}

  async get(params: Params, sdk: ServerContext): Promise<Params> {
    const task = await this.tasks.find(
      params.taskId,
      await this.partition('tasks/get', sdk, params),
    );
    return { resultType: 'complete', ...detailedTask(task) };
  }

  async update(params: Params, sdk: ServerContext): Promise<Params> {
    const partition = await this.partition('tasks/update', sdk, params);
    const task = await this.tasks.find(params.taskId, partition);
    const exchange = httpExchangeStorage.getStore();
    if (!exchange) throw internalError();
    // The SDK lifts `inputResponses` out of params; the HTTP layer's parse keeps them as sent.
    const own = ownRequestParams(exchange, sdk);
    const responses = own ? own.inputResponses : sdk.mcpReq.inputResponses;
    if (!isObject(responses))
      throw new ProtocolError(
        McpErrorCode.InvalidParams,
        'Invalid params: inputResponses must be an object',
      );
    if (
      await this.tasks.update(task.taskId, partition, responses, captureTaskPrincipal(exchange))
    ) {
      // The resumed step runs on this request, which the partition check has just authorized.
      this.calls.resumeOn(task.taskId, exchange);
      await this.tasks.schedule(task.taskId);
    }
    return { resultType: 'complete' };
  }

  async cancel(params: Params, sdk: ServerContext): Promise<Params> {
    const partition = await this.partition('tasks/cancel', sdk, params);
    await this.tasks.cancel((await this.tasks.find(params.taskId, partition)).taskId, partition);
    return { resultType: 'complete' };
  }

  /** The caller's partition, once the guards of the task's tool have run on this request. */
  private async partition(method: string, sdk: ServerContext, params: Params): Promise<string> {
    if (!declaresTasks(sdk)) throw tasksCapabilityMissing(method);
    const exchange = httpExchangeStorage.getStore();
    if (!exchange) throw internalError();
    const taskId = typeof params.taskId === 'string' ? params.taskId : '';
    const tool = this.registry.findTool(await this.tasks.toolOf(params.taskId));
    if (!tool) throw new ProtocolError(McpErrorCode.InvalidParams, UNKNOWN_TASK_MESSAGE);
    return this.calls.partitionOf(sdk, exchange, taskId, params, tool);
  }
}
