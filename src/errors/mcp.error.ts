/**
 * Base class of every error this module raises at startup or configuration time.
 *
 * @publicApi
 */
export class McpError extends Error {
  override readonly name: string = this.constructor.name;
}
