import type { McpAuthorizationPartitionResolver, McpOperationContext } from '../../../src/index';
import { bearerToken } from '../demo-auth/bearer-token';

/**
 * Demo authentication: `Authorization: Bearer <name>` makes `<name>` the caller's partition (read
 * by the same {@link bearerToken} as the role guard); no or another header is `anonymous`. A real
 * application resolves the partition from its verified identity.
 */
export class BearerPartitionResolver implements McpAuthorizationPartitionResolver {
  resolve(context: McpOperationContext): string {
    const user = bearerToken(context.http.request?.headers.authorization);
    return user === undefined ? 'anonymous' : `user:${user}`;
  }
}
