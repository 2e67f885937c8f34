import { bearerToken } from './bearer-token';

/** What the sample reads of a request: its headers, and the caller a transport put on `user`. */
export interface SampleRequest {
  readonly headers?: Record<string, string | string[] | undefined>;
  readonly user?: unknown;
}

/**
 * Who the caller is, for the role guard, the state partition and run-time tools' `visibleTo`: over
 * HTTP the name of `Authorization: Bearer <name>`; over stdio the caller the process was started
 * as (`MCP_STDIO_USER`), which the module's stdio transport puts on `request.user` (a request
 * that came over HTTP never has a `user` the client could set). `undefined` is nobody.
 */
export function callerName(request: SampleRequest | undefined): string | undefined {
  const user = request?.user as { sub?: unknown } | undefined;
  if (typeof user?.sub === 'string' && user.sub !== '') return user.sub;
  const authorization = request?.headers?.authorization;
  return bearerToken(typeof authorization === 'string' ? authorization : undefined);
}
