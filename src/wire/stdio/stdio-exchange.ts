import type { IncomingMessage, ServerResponse } from 'node:http';
import { LAUNCHED_CALLER } from '../../kit/launched-caller';
import type { HttpExchange } from '../../pipeline/http-exchange';
import type { McpStdioCaller } from './mcp-stdio-options.interface';

/**
 * What `switchToHttp().getRequest()` is over stdio: a request object of its own per message, with
 * no headers, `method` `POST`, `url` the endpoint path, `body` the JSON-RPC message, `user` the
 * caller the process was started as (absent without one) and no socket — so guards that read
 * `request.user` (and the module's scope check and partition resolver) see the caller as they see
 * a principal over HTTP, and a guard that reads `Authorization` sees nobody. It is the raw request
 * too (`ctx.http.raw`), as Express's request is.
 * @internal
 */
export interface StdioRequest {
  readonly headers: Record<string, string>;
  readonly method: 'POST';
  readonly url: string;
  readonly body: unknown;
  user?: McpStdioCaller;
  /** Lets an application's guard tell a stdio request apart. */
  readonly transport: 'stdio';
}

/** The exchange of one stdio message: the request above, and no HTTP response. @internal */
export function stdioExchange(
  endpoint: string,
  caller: McpStdioCaller | undefined,
  message: unknown,
  exactInputResponses: unknown,
): HttpExchange {
  const request: StdioRequest = {
    headers: {},
    method: 'POST',
    url: endpoint,
    body: message,
    transport: 'stdio',
    ...(caller !== undefined && { user: caller }),
  };
  // The resource server guards the HTTP endpoint; the caller here is who started the process.
  Object.defineProperty(request, LAUNCHED_CALLER, { value: true });
  return {
    request,
    raw: request as unknown as IncomingMessage,
    // No HTTP response: what an enhancer writes to `switchToHttp().getResponse()` goes nowhere.
    response: undefined as unknown as ServerResponse,
    message,
    exactInputResponses,
  };
}
