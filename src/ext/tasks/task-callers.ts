import { Injectable } from '@nestjs/common';
import type { ServerContext } from '@modelcontextprotocol/server';
import type { ToolEntry } from '../../operations/discovery/operation-entry.interface';
import { CallerPartitions } from '../../auth/identity/caller-partitions';
import type { CallHttp } from '../../pipeline/operation-call';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import { createOperationContext } from '../../pipeline/operation-context.factory';
import { OperationRunner } from '../../pipeline/operation-runner';

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
