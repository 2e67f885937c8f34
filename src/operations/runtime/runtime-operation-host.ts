import { UseFilters, UseGuards, UseInterceptors, UsePipes, type Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
} from '../../kit/nest-internals';
import { InvalidOperationDefinitionError } from '../../kit/errors/invalid-operation-definition.error';
import type { McpOperationKind } from '../../input/mcp-operation-kind';
import { OPERATION_SCOPES_GUARD } from '../../pipeline/operation-scopes.guard';
import { McpArgs, McpContext } from '../decorators/mcp-params.decorators';
import type { McpRuntimeDefinition, McpRuntimeHandler } from './mcp-runtime-definition.interface';
import { RuntimeVisibilityGuard } from './runtime-visibility.guard';

/** The method of a host that runs the handler. @internal */
export const HOST_METHOD = 'handle';

/** The metadata keys whose lists may name enhancer classes. */
const ENHANCER_KEYS = [
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  EXCEPTION_FILTERS_METADATA,
];

/** Turns an enhancer class into the instance that runs (through Nest's DI). @internal */
export type EnhancerResolver = (type: Type<unknown>) => Promise<object>;

/**
 * A run-time operation as the explorer would have found it: a fresh class (so no other operation
 * shares its metadata) whose `handle(@McpArgs() args, @McpContext() ctx)` calls the handler and
 * carries what decorators would have put on a method — `visibleTo` as the first guard, the
 * definition's guards, interceptors, pipes and filters, its other decorators, and the scope check
 * as the last guard. Its `design:paramtypes` name the `input` DTO, so pipes (a global
 * `ValidationPipe`) see it as they see a decorated method's. Enhancer classes are resolved to
 * instances here: Nest looks a class up among the providers of the host's module, which a run-time
 * host has none of, and would skip a guard it cannot find.
 * @internal
 */
export async function runtimeOperationHost(
  kind: McpOperationKind,
  where: string,
  definition: McpRuntimeDefinition<{ input?: unknown; scopes?: unknown }>,
  handler: McpRuntimeHandler<never>,
  resolve: EnhancerResolver,
): Promise<Record<string, unknown>> {
  const Host = class {} as Type<unknown>;
  Object.defineProperty(Host, 'name', {
    value: `McpRuntime${kind[0].toUpperCase()}${kind.slice(1)}`,
  });
  const method = function (this: unknown, args: never, context: never): unknown {
    return handler(args, context);
  };
  Object.defineProperty(method, 'name', { value: HOST_METHOD });
  Object.defineProperty(Host.prototype, HOST_METHOD, { value: method, writable: true });
  const prototype = Host.prototype as object;
  const input = definition.input;
  Reflect.defineMetadata(
    'design:paramtypes',
    [typeof input === 'function' ? input : Object, Object],
    prototype,
    HOST_METHOD,
  );
  McpArgs()(prototype, HOST_METHOD, 0);
  McpContext()(prototype, HOST_METHOD, 1);
  const descriptor = Object.getOwnPropertyDescriptor(prototype, HOST_METHOD) as PropertyDescriptor;
  const decorators: MethodDecorator[] = [
    ...(definition.visibleTo ? [UseGuards(new RuntimeVisibilityGuard(definition.visibleTo))] : []),
    ...(definition.guards?.length ? [UseGuards(...definition.guards)] : []),
    ...(definition.interceptors?.length ? [UseInterceptors(...definition.interceptors)] : []),
    ...(definition.pipes?.length ? [UsePipes(...definition.pipes)] : []),
    ...(definition.filters?.length ? [UseFilters(...definition.filters)] : []),
    ...(definition.decorators ?? []),
    ...(definition.scopes !== undefined ? [UseGuards(OPERATION_SCOPES_GUARD)] : []),
  ];
  try {
    for (const decorate of decorators) decorate(prototype, HOST_METHOD, descriptor);
  } catch (error) {
    throw new InvalidOperationDefinitionError(
      where,
      error instanceof Error ? error.message : 'a decorator failed',
    );
  }
  for (const key of ENHANCER_KEYS) {
    const listed = Reflect.getMetadata(key, method) as unknown[] | undefined;
    if (!listed?.some((entry) => typeof entry === 'function')) continue;
    const instances = await Promise.all(
      listed.map((entry) =>
        typeof entry === 'function' ? resolve(entry as Type<unknown>) : Promise.resolve(entry),
      ),
    );
    Reflect.defineMetadata(key, instances, method);
  }
  return new (Host as new () => Record<string, unknown>)();
}
