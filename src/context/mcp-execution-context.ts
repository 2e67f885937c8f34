import type { ContextType, ExecutionContext } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { McpRequestContext } from '../interfaces/mcp-request-context.interface';

/** Context types an enhancer can see once MCP operations exist. @publicApi */
export type McpContextType = 'mcp' | ContextType;

/**
 * Typed view of an `ExecutionContext` for MCP operations, for guards, interceptors and filters.
 *
 * @example
 * ```ts
 * canActivate(ctx: ExecutionContext) {
 *   if (!isMcpContext(ctx)) return true;
 *   const mcp = McpExecutionContext.create(ctx);
 *   return mcp.getRequestContext().http.authInfo !== undefined;
 * }
 * ```
 * @publicApi
 */
export class McpExecutionContext extends ExecutionContextHost {
  /** Wraps a Nest `ExecutionContext`. */
  static create(context: ExecutionContext): McpExecutionContext {
    const mcpContext = new McpExecutionContext(
      context.getArgs(),
      context.getClass(),
      context.getHandler(),
    );
    mcpContext.setType(context.getType());
    return mcpContext;
  }

  /** The operation's arguments (tool or prompt arguments, resource-template variables). */
  getOperationArgs<T = Record<string, unknown>>(): T {
    return this.getArgByIndex<T>(0);
  }

  /** The MCP request being served. */
  getRequestContext(): McpRequestContext {
    return this.getArgByIndex<McpRequestContext>(1);
  }
}
