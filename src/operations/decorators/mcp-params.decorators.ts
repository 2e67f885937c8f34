import type { PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '../../kit/nest-internals';
import { McpParamtype } from '../../pipeline/mcp-paramtype.enum';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';

/**
 * The {@link McpOperationContext}, under the name of its parameter decorator, so that
 * `@McpContext() ctx: McpContext` reads naturally and, being a value too, can be imported like any
 * other name even where `isolatedModules` and `emitDecoratorMetadata` require type-only imports of
 * types used in decorated signatures.
 *
 * @publicApi
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface McpContext extends McpOperationContext {}

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
 * Injects the {@link McpOperationContext} of the call (`@McpContext() ctx: McpContext`):
 * client capabilities, protocol version,
 * request id, progress reporter, logger, abort signal, HTTP request and auth info.
 *
 * @publicApi
 */
export function McpContext(): ParameterDecorator {
  return mcpParam(McpParamtype.CONTEXT, undefined, []);
}
