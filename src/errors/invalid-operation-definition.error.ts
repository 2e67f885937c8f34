import { McpError } from './mcp.error';

/**
 * Thrown at startup when an operation decorator was given options that cannot be served.
 *
 * @publicApi
 */
export class InvalidOperationDefinitionError extends McpError {
  constructor(site: string, problem: string) {
    super(`Invalid MCP operation ${site}: ${problem}`);
  }
}
