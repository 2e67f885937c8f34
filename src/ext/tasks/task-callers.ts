import { Injectable } from '@nestjs/common';
import type { ServerContext } from '@modelcontextprotocol/server';
import {
  CallerPartitions,
  OperationRunner,
  createOperationContext,
  type CallHttp,
  type McpOperationContext,
  type ToolEntry,
} from '../../extension-api';

/**
 * Who is asking about a task: the caller's authorization partition, as request state binds it,
 * after the guards of the task's tool have run on this request (a passport-style guard sets
 * `req.user` there). A guard that refuses answers as it would for a call of the tool.
 * @internal
 */
@Injectable()
export class TaskCallers {
  constructor(
    private readonly runner: OperationRunner,
    private readonly partitions: CallerPartitions,
  ) {}

  /** The partition of a caller whose guards already ran on this request. */
  partitionFrom(context: McpOperationContext): Promise<string> {
    return Promise.resolve(this.partitions.resolve(context));
  }

  async partitionOf(
    sdk: ServerContext,
    http: CallHttp,
    target: string,
    params: Readonly<Record<string, unknown>>,
    tool?: ToolEntry,
  ): Promise<string> {
    const context = tool
      ? await this.runner.authorize({ operation: tool, target, params, args: {}, http, sdk })
      : createOperationContext(sdk, target, http, undefined);
    return this.partitions.resolve(context);
  }
}
