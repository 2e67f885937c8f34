import type { McpAuthorizationPartitionResolver, McpRequestContext } from '../../../src/index';

/**
 * Demo authentication: `Authorization: Bearer <name>` makes `<name>` the caller's partition; no
 * header is `anonymous`. A real application resolves the partition from its verified identity.
 */
export class BearerPartitionResolver implements McpAuthorizationPartitionResolver {
  resolve(context: McpRequestContext): string {
    const header = context.http.request?.headers.authorization;
    const match =
      typeof header === 'string' ? /^Bearer ([A-Za-z0-9._~+/=-]{1,128})$/.exec(header) : null;
    return match ? `user:${match[1]}` : 'anonymous';
  }
}
