/**
 * When a declared client capability is checked.
 *
 * - `REQUIRED`: on every round, after guards admit the call and before the handler runs.
 * - `CONDITIONAL`: only when the handler actually emits a request of that type.
 *
 * @publicApi
 */
export enum McpInputRequirement {
  REQUIRED = 'required',
  CONDITIONAL = 'conditional',
}
