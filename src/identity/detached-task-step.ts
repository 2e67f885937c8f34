import type { ExecutionContext } from '@nestjs/common';
import type { McpHttpRequest } from '../interfaces/mcp-request-context.interface';
import type { HttpExchange } from '../pipeline/http-exchange.storage';
import type { McpTaskRecord } from '../tasks/store/mcp-task.types';

const DETACHED_STEP = Symbol('nestjs-mcp.detachedTaskStep');

interface DetachedStepRequest extends McpHttpRequest {
  readonly [DETACHED_STEP]: { readonly taskId: string; readonly partition: string };
}

function detachedStepOf(request: unknown): DetachedStepRequest[typeof DETACHED_STEP] | undefined {
  return request !== null && typeof request === 'object' && DETACHED_STEP in request
    ? (request as DetachedStepRequest)[DETACHED_STEP]
    : undefined;
}

/**
 * The exchange a task step runs on when the request that created or resumed the task is on
 * another instance (a fleet's queue gave the step to this one): no headers, no socket, no
 * response; `req.user` and `req.auth` as the task kept them; the task's partition.
 * @internal
 */
export function detachedStepExchange(task: McpTaskRecord, endpoint: string): HttpExchange {
  const principal = task.principal as { user?: unknown; auth?: unknown } | undefined;
  const request: DetachedStepRequest = {
    headers: {},
    method: 'POST',
    url: endpoint,
    ...(principal?.user !== undefined && { user: principal.user }),
    ...(principal?.auth !== undefined && { auth: principal.auth as McpHttpRequest['auth'] }),
    [DETACHED_STEP]: { taskId: task.taskId, partition: task.partition },
  };
  return {
    request,
    raw: request as unknown as HttpExchange['raw'],
    response: undefined as unknown as HttpExchange['response'],
    message: undefined,
    exactInputResponses: undefined,
  };
}

/** The partition of the task a detached step serves, if `request` is one. @internal */
export function detachedStepPartition(request: unknown): string | undefined {
  return detachedStepOf(request)?.partition;
}

/**
 * Whether this MCP call is a task step running away from the request that created or resumed
 * its task — on another instance of a fleet, taken from a shared queue. Such a step has no HTTP
 * headers: `req.user` and `req.auth` (without its token) are what your guards set on that request,
 * and the caller's partition is the task's. A guard that authenticates from credentials (a
 * passport JWT guard) refuses it, failing the task, unless it lets such steps through:
 *
 * ```ts
 * canActivate(context: ExecutionContext) {
 *   return isDetachedMcpTaskStep(context) || super.canActivate(context);
 * }
 * ```
 *
 * @publicApi
 */
export function isDetachedMcpTaskStep(context: ExecutionContext): boolean {
  return detachedStepOf(context.switchToHttp().getRequest()) !== undefined;
}
