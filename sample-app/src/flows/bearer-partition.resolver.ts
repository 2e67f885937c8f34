import { createHash } from 'node:crypto';
import type { McpAuthorizationPartitionResolver, McpOperationContext } from '../../../src/index';
import { callerName } from '../demo-auth/caller-name';

/**
 * Demo authentication: the caller of `Authorization: Bearer <name>` (or the stdio caller, read by
 * the same {@link callerName} as the role guard) is `user:<digest>`, the first 22 characters of the
 * name's SHA-256 in base64url; nobody is `anonymous`. The bearer token itself never becomes a
 * partition: partitions reach logs, metrics and the audit trail, and a bearer token (the admin
 * token among them) is a credential. A real application resolves the partition from its verified
 * identity (a user id, never the token).
 */
export class BearerPartitionResolver implements McpAuthorizationPartitionResolver {
  resolve(context: McpOperationContext): string {
    const user = callerName(context.http.request);
    return user === undefined ? 'anonymous' : `user:${demoUserOf(user)}`;
  }
}

/** The demo user a bearer token stands for: a digest of it, never the token. */
export function demoUserOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}
