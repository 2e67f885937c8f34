import { createHash } from 'node:crypto';
import type { McpAuthorizationPartitionResolver, McpOperationContext } from '../../../src/index';
import { bearerToken } from '../demo-auth/bearer-token';

/**
 * Demo authentication: the caller of `Authorization: Bearer <token>` (read by the same
 * {@link bearerToken} as the role guard) is `user:<digest>`, the first 22 characters of the
 * token's SHA-256 in base64url; no or another header is `anonymous`. The token itself never
 * becomes a partition: partitions reach logs, metrics and the audit trail, and a bearer token (the
 * admin token among them) is a credential. A real application resolves the partition from its
 * verified identity (a user id, never the token).
 */
export class BearerPartitionResolver implements McpAuthorizationPartitionResolver {
  resolve(context: McpOperationContext): string {
    const token = bearerToken(context.http.request?.headers.authorization);
    return token === undefined ? 'anonymous' : `user:${demoUserOf(token)}`;
  }
}

/** The demo user a bearer token stands for: a digest of it, never the token. */
export function demoUserOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}
