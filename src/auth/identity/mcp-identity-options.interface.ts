import type { McpAuthorizationPartitionResolver } from './authorization-partition.resolver';

/** Who the caller is, for binding state and sharing limits (`McpModuleOptions.identity`). @publicApi */
export interface McpIdentityOptions {
  /**
   * Names the caller's authorization partition for state binding; may also be provided as
   * `McpAuthorizationPartitionResolver` in any of your modules. Default: the user on `req.user`
   * (passport-style) and the OAuth client and subject on `req.auth`, else `anonymous`.
   */
  partitionResolver?: McpAuthorizationPartitionResolver;
  /**
   * The `req.user` field that identifies a user for the default partition resolver. Default: the
   * first of `id`, `sub`, `userId`, `username`, `email` the user object has.
   */
  userIdField?: string;
}
