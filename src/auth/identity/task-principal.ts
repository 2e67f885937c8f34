import type { McpJsonValue } from '../../kit/json-value';
import type { McpHttpRequest } from '../../input/mcp-operation-context.interface';

/** Largest principal a task keeps, in JSON bytes; a bigger one is not kept. @internal */
export const MAX_TASK_PRINCIPAL_BYTES = 16_384;

/**
 * What a task keeps of who its caller was, for a step that runs away from its request.
 * @internal
 */
export interface TaskPrincipal {
  /** `req.user` as your guards or middleware set it, as JSON. */
  readonly user?: McpJsonValue;
  /** `req.auth` (OAuth token information) without the token itself, as JSON. */
  readonly auth?: McpJsonValue;
}

/**
 * The caller as the application's guards left it on this request — `req.user` and `req.auth`
 * (never its bearer token) — as bounded JSON, or `undefined` when there is none or it is not
 * JSON. Read after the guards of the task's tool ran.
 * @internal
 */
export function captureTaskPrincipal(exchange: {
  readonly request: McpHttpRequest;
  readonly raw: unknown;
}): TaskPrincipal | undefined {
  const raw = exchange.raw as { user?: unknown; auth?: unknown };
  const user = exchange.request.user ?? raw.user;
  const auth = (exchange.request.auth ?? raw.auth) as Record<string, unknown> | undefined;
  if (user === undefined && auth === undefined) return undefined;
  const withoutToken =
    auth !== null && typeof auth === 'object'
      ? Object.fromEntries(Object.entries(auth).filter(([key]) => key !== 'token'))
      : auth;
  let text: string | undefined;
  try {
    text = JSON.stringify({ user, auth: withoutToken });
  } catch {
    return undefined;
  }
  if (text === undefined || Buffer.byteLength(text) > MAX_TASK_PRINCIPAL_BYTES) return undefined;
  return JSON.parse(text) as TaskPrincipal;
}
