import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ProtocolError,
  SUBSCRIPTION_ID_META_KEY,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../../kit/errors/mcp-error-codes';
import { MCP_KEEP_ALIVE_MS, MCP_META_KEYS, MCP_PROTOCOL_VERSION } from '../../../kit/mcp.constants';
import { writeJsonRpcHttpError } from '../../../kit/json-rpc-http-error';
import { TaskCallers } from '../task-callers';
import { McpTasksService } from '../mcp-tasks.service';
import { declaresTasks } from '../wire/tasks-capability';
import { MCP_TASKS_EXTENSION, type McpTaskRecord } from '../store/mcp-task.types';
import { MAX_TASK_ID_LENGTH } from '../store/task-id';
import { TaskStatusFeed } from '../events/task-status-feed';
import { detailedTask } from '../wire/tasks-wire';
import {
  McpOperationRegistry,
  envelopeContext,
  type HttpExchange,
  type McpHttpRequest,
  type McpListenRoute,
  type ToolEntry,
} from '../../../extension-api';

/** Task ids one listen stream may follow. @internal */
export const MAX_FOLLOWED_TASKS = 100;

type Message = { id?: unknown; params?: { _meta?: unknown; notifications?: unknown } };

function followedTaskIds(message: unknown): unknown {
  const notifications = (message as Message | null)?.params?.notifications;
  return notifications !== null &&
    typeof notifications === 'object' &&
    Object.hasOwn(notifications, 'taskIds')
    ? (notifications as { taskIds: unknown }).taskIds
    : undefined;
}

/**
 * `subscriptions/listen` streams that follow tasks (`notifications: { taskIds }`): every status
 * change of a followed task of the caller's own partition, made on any instance, goes out as
 * `notifications/tasks` (the `DetailedTask`, as `tasks/get` gives it, read from the store). Such
 * a stream honours only `taskIds`; list-change subscriptions take a stream of their own.
 * @internal
 */
@Injectable()
export class TaskListenStreams implements McpListenRoute {
  private readonly open = new Set<() => void>();

  constructor(
    @Inject(MCP_KEEP_ALIVE_MS) private readonly keepAliveMs: number,
    private readonly feed: TaskStatusFeed,
    private readonly callers: TaskCallers,
    private readonly tasks: McpTasksService,
    private readonly registry: McpOperationRegistry,
  ) {}

  /**
   * The caller's partition, once the guards of the tools whose tasks the stream follows have run
   * on this request (they decide who the caller is, as for `tasks/get`). Ids of no task run none.
   */
  private async callerOf(
    followed: ReadonlySet<string>,
    sdk: ServerContext,
    exchange: HttpExchange,
    params: Record<string, unknown>,
  ): Promise<string> {
    const tools = new Map<string, ToolEntry>();
    for (const taskId of followed) {
      const name = await this.tasks.lookup(taskId).then(
        (task) => task.call.name,
        () => undefined,
      );
      const tool = name === undefined ? undefined : this.registry.findTool(name);
      if (tool) tools.set(tool.name, tool);
    }
    let partition: string | undefined;
    for (const tool of tools.values())
      partition = await this.callers.partitionOf(
        sdk,
        exchange,
        'subscriptions/listen',
        params,
        tool,
      );
    return partition ?? this.callers.partitionOf(sdk, exchange, 'subscriptions/listen', params);
  }

  /** Whether this listen request follows tasks (and so is served here). */
  follows(message: unknown): boolean {
    return followedTaskIds(message) !== undefined;
  }

  /** Serves the stream until the client goes away or the application shuts down. */
  async serve(
    request: McpHttpRequest,
    req: IncomingMessage,
    res: ServerResponse,
    message: unknown,
  ): Promise<void> {
    const id = (message as Message).id as string | number;
    const taskIds = followedTaskIds(message);
    if (
      !Array.isArray(taskIds) ||
      taskIds.length > MAX_FOLLOWED_TASKS ||
      taskIds.some((taskId) => typeof taskId !== 'string' || taskId.length > MAX_TASK_ID_LENGTH)
    )
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.InvalidParams,
        `Invalid params: notifications.taskIds must be at most ${MAX_FOLLOWED_TASKS} task ids`,
        id,
      );
    const sdk = envelopeContext(
      id,
      'subscriptions/listen',
      (message as Message).params?._meta,
      new AbortController().signal,
    );
    const envelope = sdk.mcpReq.envelope as Record<string, unknown>;
    if (envelope[MCP_META_KEYS.protocolVersion] !== MCP_PROTOCOL_VERSION)
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.InvalidParams,
        'Invalid params: the _meta envelope must name protocol version 2026-07-28',
        id,
      );
    if (!declaresTasks(sdk))
      return writeJsonRpcHttpError(
        res,
        400,
        McpErrorCode.MissingRequiredClientCapability,
        `Following tasks needs the ${MCP_TASKS_EXTENSION} extension in the request's client capabilities`,
        id,
        { requiredCapabilities: { extensions: { [MCP_TASKS_EXTENSION]: {} } } },
      );
    const exchange = { request, raw: req, response: res, message, exactInputResponses: undefined };
    const params = ((message as Message).params ?? {}) as Record<string, unknown>;
    const followed = new Set(taskIds as string[]);
    let partition: string;
    try {
      partition = await this.callerOf(followed, sdk, exchange, params);
    } catch (error) {
      const refusal =
        error instanceof ProtocolError
          ? error
          : new ProtocolError(McpErrorCode.InternalError, 'Internal error');
      return writeJsonRpcHttpError(res, 200, refusal.code, refusal.message, id, refusal.data);
    }
    const frame = (payload: unknown) =>
      res.write(`event: message\ndata: ${JSON.stringify(payload)}\n\n`);
    const meta = { [SUBSCRIPTION_ID_META_KEY]: id };
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    frame({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: meta, notifications: { taskIds: [...followed] } },
    });
    // A re-read may find a later change than the one announced: send each version once, in order.
    const sentVersions = new Map<string, number>();
    const onStatus = (task: McpTaskRecord) => {
      if (task.partition !== partition || task.version <= (sentVersions.get(task.taskId) ?? 0))
        return;
      sentVersions.set(task.taskId, task.version);
      frame({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...detailedTask(task), _meta: meta },
      });
    };
    const unfollow = this.feed.follow(followed, onStatus);
    const keepAlive =
      this.keepAliveMs > 0
        ? setInterval(() => res.write(': keepalive\n\n'), this.keepAliveMs)
        : undefined;
    await new Promise<void>((resolve) => {
      const end = () => {
        if (res.writableEnded) return;
        frame({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: meta } });
        res.end();
      };
      this.open.add(end);
      res.once('close', () => {
        this.open.delete(end);
        unfollow();
        clearInterval(keepAlive);
        resolve();
      });
    });
  }

  /** Ends every open stream with its final result. */
  closeAll(): void {
    for (const end of this.open) end();
  }
}
