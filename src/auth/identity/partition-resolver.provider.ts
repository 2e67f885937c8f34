import { portProvider } from '../../options/port.provider';
import {
  DefaultAuthorizationPartitionResolver,
  PARTITION_RESOLVER_PORT,
} from './authorization-partition.resolver';
import type { McpIdentityOptions } from './mcp-identity-options.interface';

/** The `identity` options, checked. @internal */
export type IdentityOptions = Readonly<McpIdentityOptions>;

/** Injection token of the {@link IdentityOptions}. @internal */
export const IDENTITY_OPTIONS = Symbol('IdentityOptions');

/**
 * The partition resolver port as a provider: the `identity.partitionResolver` option, an
 * application's provider of `McpAuthorizationPartitionResolver`, or the default resolver.
 * @internal
 */
export const PARTITION_RESOLVER_PROVIDER = portProvider(PARTITION_RESOLVER_PORT, {
  inject: [IDENTITY_OPTIONS],
  fromOptions: (options: IdentityOptions) => options.partitionResolver,
  fallback: (options: IdentityOptions) =>
    new DefaultAuthorizationPartitionResolver(options.userIdField),
});
