import type { ContextType, ExecutionContext } from '@nestjs/common';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';
import { operationCallOf, type OperationCall } from '../../pipeline/operation-call';
import { ExecutionContextHost } from '../../kit/nest-internals';

/** Context types an enhancer can see once MCP operations exist. @internal */
export type McpContextType = 'mcp' | ContextType;

/**
 * Typed view of an `ExecutionContext` for MCP operations, for guards, interceptors and filters.
 * Its HTTP view (`switchToHttp()`) is the real HTTP request that carried the MCP request; the MCP
 * arguments and request context are reached here. The application's guards and interceptors run
 * before the module's own steps, so they see the arguments as sent and a context without answers
 * or state; a custom parameter decorator (which runs with the pipes, right before the method)
 * sees the arguments as validated and the opened round.
 *
 * @example
 * ```ts
 * canActivate(ctx: ExecutionContext) {
 *   if (!isMcpContext(ctx)) return true;
 *   const mcp = McpExecutionContext.create(ctx);
 *   return mcp.getOperationContext().http.authInfo !== undefined;
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
    return this.call().methodArgs as T;
  }

  /** The MCP request being served. */
  getOperationContext(): McpOperationContext {
    return this.call().methodContext;
  }

  private call(): OperationCall {
    const call = operationCallOf(this.getArgs());
    if (!call) throw new Error('McpExecutionContext used outside an MCP operation call');
    return call;
  }
}
