import type { ExecutionContext } from '@nestjs/common';
import { operationCallOf } from '../../pipeline/operation-call';

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
  return operationCallOf(context.getArgs())?.detached !== undefined;
}
