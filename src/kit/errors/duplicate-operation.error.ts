import { NestjsMcpError } from './nestjs-mcp.error';

/** Where an operation was declared, for messages. @publicApi */
export interface OperationSite {
  className: string;
  methodName: string;
}

/**
 * Thrown at startup when two methods declare an MCP operation of the same kind with the same name.
 *
 * @publicApi
 */
export class DuplicateOperationError extends NestjsMcpError {
  constructor(kind: string, name: string, first: OperationSite, second: OperationSite) {
    super(
      `Duplicate MCP ${kind} "${name}": declared by ${first.className}.${first.methodName}() ` +
        `and ${second.className}.${second.methodName}()`,
    );
  }
}
