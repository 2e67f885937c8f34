import type { PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '../util/nest-internals';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum';
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- referenced by the JSDoc
import type { McpOperationContext } from '../interfaces/mcp-operation-context.interface';

function mcpParam(
  paramtype: McpParamtype,
  data: string | undefined,
  pipes: (Type<PipeTransform> | PipeTransform)[],
): ParameterDecorator {
  return (target, key, index) => {
    if (key === undefined) return;
    const existing = Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {};
    Reflect.defineMetadata(
      ROUTE_ARGS_METADATA,
      { ...existing, [`${paramtype}:${index}`]: { index, data, pipes } },
      target.constructor,
      key,
    );
  };
}

/**
 * Injects the operation's arguments (tool arguments, prompt arguments, or resource-template
 * variables), or one property of them. Pipes see them as a request body, so a global
 * `ValidationPipe` validates a class-validator DTO.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Greets' })
 * greet(@McpArgs() args: GreetDto) { ... }
 * ```
 * @publicApi
 */
export function McpArgs(
  property?: string,
  ...pipes: (Type<PipeTransform> | PipeTransform)[]
): ParameterDecorator {
  return mcpParam(McpParamtype.ARGS, property, pipes);
}

/**
 * Injects the {@link McpOperationContext} of the call (`@McpContext() ctx: McpOperationContext`):
 * client capabilities, protocol version,
 * request id, progress reporter, logger, abort signal, HTTP request and auth info.
 *
 * @publicApi
 */
export function McpContext(): ParameterDecorator {
  return mcpParam(McpParamtype.CONTEXT, undefined, []);
}
