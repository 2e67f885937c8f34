import { port } from '../../options/port';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';

/**
 * Names the authorization partition of a caller: framework-protected state sealed for one
 * partition never opens for another. Provide your own as the `partitionResolver` module option or
 * as a provider of this token in any of your modules (e.g. tenant plus subject from your auth
 * layer). It runs after your guards, so it sees what they set on the request.
 *
 * @publicApi
 */
export interface McpAuthorizationPartitionResolver {
  resolve(context: McpOperationContext): string | Promise<string>;
}

/** DI token of an application-provided {@link McpAuthorizationPartitionResolver}. @publicApi */
export const McpAuthorizationPartitionResolver = Symbol('McpAuthorizationPartitionResolver');

/** The partition resolver port: the `partitionResolver` option, or a provider of the token. @internal */
export const PARTITION_RESOLVER_PORT = port<McpAuthorizationPartitionResolver>(
  McpAuthorizationPartitionResolver,
  'identity.partitionResolver',
);

/** The partition of callers the resolver cannot tell apart. @publicApi */
export const ANONYMOUS_PARTITION = 'anonymous';

/**
 * Fields tried, in order, to identify a `req.user` object when no `userIdField` is configured.
 * @internal
 */
export const DEFAULT_USER_ID_FIELDS = ['id', 'sub', 'userId', 'username', 'email'] as const;

type Identifier = string | number;

function isIdentifier(value: unknown): value is Identifier {
  return (typeof value === 'string' && value !== '') || typeof value === 'number';
}

/**
 * The default resolver, for the principals Nest apps actually have: the user a passport-style
 * guard or middleware put on `req.user` (identified by `identity.userIdField`, or by the first of `id`,
 * `sub`, `userId`, `username`, `email` it has), and the OAuth client and subject of `req.auth`
 * set by bearer-auth middleware. The partition is a JSON array of typed parts, so no two
 * principals share one (`["user", 42]` and `["user", "42"]` differ, a client id cannot pose as
 * a subject); with neither it is `anonymous`.
 *
 * @publicApi
 */
export class DefaultAuthorizationPartitionResolver implements McpAuthorizationPartitionResolver {
  constructor(private readonly userIdField?: string) {}

  resolve(context: McpOperationContext): string {
    const parts: unknown[] = [];
    const user =
      context.http.request.user ?? (context.http.raw as { user?: unknown } | undefined)?.user;
    const userId = this.userIdOf(user);
    if (userId !== undefined) parts.push(['user', userId]);
    const auth = context.http.authInfo as
      { clientId?: unknown; extra?: { sub?: unknown } } | undefined;
    if (auth && isIdentifier(auth.clientId)) {
      const subject = isIdentifier(auth.extra?.sub) ? auth.extra.sub : null;
      parts.push(['oauth', auth.clientId, subject]);
    }
    return parts.length === 0 ? ANONYMOUS_PARTITION : JSON.stringify(parts);
  }

  private userIdOf(user: unknown): Identifier | undefined {
    if (isIdentifier(user)) return user;
    if (user === null || typeof user !== 'object') return undefined;
    const fields = this.userIdField ? [this.userIdField] : DEFAULT_USER_ID_FIELDS;
    for (const field of fields) {
      const value = Object.hasOwn(user, field)
        ? (user as Record<string, unknown>)[field]
        : undefined;
      if (isIdentifier(value)) return value;
    }
    return undefined;
  }
}
