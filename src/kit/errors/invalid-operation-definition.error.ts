import { NestjsMcpError } from './nestjs-mcp.error';

/**
 * Thrown at startup when an operation decorator was given options that cannot be served.
 *
 * @publicApi
 */
export class InvalidOperationDefinitionError extends NestjsMcpError {
  constructor(site: string, problem: string) {
    super(`Invalid MCP operation ${site}: ${problem}`);
  }
}
