/**
 * Base class of the errors this module raises itself: invalid options or operation definitions,
 * keyring operations, input requests that break the safety policy, state protection. Named so it
 * never collides with the SDK's own `McpError`.
 *
 * @publicApi
 */
export class NestjsMcpError extends Error {
  override readonly name: string = this.constructor.name;
}
