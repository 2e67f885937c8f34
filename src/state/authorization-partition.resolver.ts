import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';

/**
 * Names the authorization partition of a caller: framework-protected state sealed for one
 * partition never opens for another. Provide your own as the `partitionResolver` module option
 * (e.g. tenant plus subject from your auth layer).
 *
 * @publicApi
 */
export interface McpAuthorizationPartitionResolver {
  resolve(context: McpRequestContext): string | Promise<string>;
}

/** DI token of the active {@link McpAuthorizationPartitionResolver}. @publicApi */
export const McpAuthorizationPartitionResolver = Symbol('McpAuthorizationPartitionResolver');

/**
 * The default resolver: the OAuth client id (and subject, when present) of `req.auth` set by an
 * authentication middleware, otherwise `anonymous`.
 *
 * @publicApi
 */
export class DefaultAuthorizationPartitionResolver implements McpAuthorizationPartitionResolver {
  resolve(context: McpRequestContext): string {
    const auth = context.http.authInfo as
      { clientId?: string; extra?: { sub?: unknown } } | undefined;
    if (!auth?.clientId) return 'anonymous';
    const subject = typeof auth.extra?.sub === 'string' ? `:${auth.extra.sub}` : '';
    return `client:${auth.clientId}${subject}`;
  }
}
