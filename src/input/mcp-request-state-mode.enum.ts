/**
 * Who owns an operation's request state.
 *
 * - `NONE` (default): the operation carries no state between rounds.
 * - `APPLICATION_PROTECTED`: the application supplies an opaque string (at most 65,536 UTF-8 bytes)
 *   and protects, expires and validates it itself — typically a handle into its own store.
 * - `FRAMEWORK_PROTECTED`: the application supplies JSON; the module seals it (AES-256-GCM), binds
 *   it to the operation, caller and arguments, and enforces lifetime and round limits.
 *
 * @publicApi
 */
export enum McpRequestStateMode {
  NONE = 'none',
  APPLICATION_PROTECTED = 'application',
  FRAMEWORK_PROTECTED = 'framework',
}
