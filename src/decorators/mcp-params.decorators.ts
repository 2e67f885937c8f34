import type { PipeTransform, Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '../util/nest-internals';
import { McpParamtype } from '../pipeline/mcp-paramtype.enum';
import type { McpRequestContext as RequestContextShape } from '../interfaces/mcp-request-context.interface';

/**
 * The request context type, under the same name as its parameter decorator so that
 * `@McpRequestContext() ctx: McpRequestContext` reads naturally.
 *
 * @publicApi
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface McpRequestContext extends RequestContextShape {}

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
 * Injects the {@link McpRequestContext} of the call: client capabilities, protocol version,
 * request id, progress reporter, logger, abort signal, HTTP request and auth info.
 *
 * @publicApi
 */
export function McpRequestContext(): ParameterDecorator {
  return mcpParam(McpParamtype.CONTEXT, undefined, []);
}
