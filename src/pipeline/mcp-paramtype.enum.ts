/**
 * Parameter slots of an MCP operation. `ARGS` shares its number with Nest's `BODY`, so pipes see the
 * arguments as a body and `ValidationPipe` validates class-validator DTOs.
 * @internal
 */
export enum McpParamtype {
  ARGS = 3,
  CONTEXT = 6,
}
