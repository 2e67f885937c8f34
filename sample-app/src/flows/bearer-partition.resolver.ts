import type { McpAuthorizationPartitionResolver, McpOperationContext } from '../../../src/index';
import { callerName } from '../demo-auth/caller-name';

/**
 * Demo authentication: `Authorization: Bearer <name>` (or the stdio caller) makes `<name>` the
 * caller's partition (read by the same {@link callerName} as the role guard); nobody is `anonymous`. A real
 * application resolves the partition from its verified identity.
 */
export class BearerPartitionResolver implements McpAuthorizationPartitionResolver {
  resolve(context: McpOperationContext): string {
    const user = callerName(context.http.request);
    return user === undefined ? 'anonymous' : `user:${user}`;
  }
}
