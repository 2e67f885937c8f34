import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';
import type { TaskPrincipal } from './task-principal';

/**
 * A task step running away from the request that created or resumed its task (a fleet's queue
 * gave it to an instance without that request): the task it serves and the caller's partition,
 * decided when the task was made.
 * @internal
 */
export interface DetachedTaskStep {
  readonly taskId: string;
  readonly partition: string;
}

/** What a detached step's enhancers see of HTTP: no headers, no socket, no response. @internal */
export interface DetachedStepHttp {
  readonly request: McpHttpRequest;
  readonly raw: IncomingMessage;
  readonly response: ServerResponse;
}

/**
 * The HTTP side a detached step runs with: `req.user` and `req.auth` as the task kept them (see
 * {@link TaskPrincipal}), nothing else.
 * @internal
 */
export function detachedStepHttp(
  principal: TaskPrincipal | undefined,
  endpoint: string,
): DetachedStepHttp {
  const request: McpHttpRequest = {
    headers: {},
    method: 'POST',
    url: endpoint,
    ...(principal?.user !== undefined && { user: principal.user }),
    ...(principal?.auth !== undefined && {
      auth: principal.auth as unknown as McpHttpRequest['auth'],
    }),
  };
  return {
    request,
    raw: request as unknown as IncomingMessage,
    response: undefined as unknown as ServerResponse,
  };
}
