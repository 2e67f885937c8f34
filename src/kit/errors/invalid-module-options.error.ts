import { NestjsMcpError } from './nestjs-mcp.error';

/**
 * Thrown at startup when `McpModule` options are invalid. The message names the option.
 *
 * @publicApi
 */
export class InvalidModuleOptionsError extends NestjsMcpError {
  constructor(
    readonly option: string,
    problem: string,
  ) {
    super(`Invalid McpModule option "${option}": ${problem}`);
  }
}
