import type {
  CanActivate,
  ExceptionFilter,
  NestInterceptor,
  PipeTransform,
  Type,
} from '@nestjs/common';
import type { McpOperationContext } from '../../input/mcp-operation-context.interface';

/**
 * What an operation registered at run time is defined by: the options its decorator would take
 * (`McpToolOptions`, `McpPromptOptions` or `McpResourceOptions`: name, description, `inputSchema`
 * as JSON Schema or `input` as a Standard Schema validator or DTO class, `outputSchema`,
 * `mayRequestInput`, `requestState`, `taskSupport`, `scopes`…), plus what decorators would put on
 * its method — guards, interceptors, pipes and exception filters, as classes (resolved through
 * Nest's DI) or instances, and any other method decorator (`SetMetadata`, a role decorator your
 * guards read) — and a visibility predicate for tenancy.
 *
 * @example
 * ```ts
 * const definition: McpRuntimeDefinition<McpToolOptions> = {
 *   name: 'acme_lookup',
 *   description: 'Looks up an ACME order',
 *   inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
 *   guards: [TenantGuard],
 *   visibleTo: (caller) => tenantOf(caller) === 'acme',
 * };
 * ```
 * @publicApi
 */
export type McpRuntimeDefinition<Options extends object> = Options & {
  /** Method guards, after the global ones (and after `visibleTo`), before the scope check. */
  readonly guards?: readonly (Type<CanActivate> | CanActivate)[];
  /** Method interceptors, after the global ones; the module's own steps stay innermost. */
  readonly interceptors?: readonly (Type<NestInterceptor> | NestInterceptor)[];
  /** Method pipes, after the global ones: they see the arguments as a request body. */
  readonly pipes?: readonly (Type<PipeTransform> | PipeTransform)[];
  /** Method exception filters, before the global ones. */
  readonly filters?: readonly (Type<ExceptionFilter> | ExceptionFilter)[];
  /**
   * Any other method decorators, applied as to a decorated method (`SetMetadata(…)`, a
   * `Reflector.createDecorator()` your guards read, `@Throttle(…)`); enhancers they name are
   * resolved like `guards`.
   */
  readonly decorators?: readonly MethodDecorator[];
  /**
   * Who may know the operation exists: run for every list, call and completion after the global
   * guards (so it sees the `req.user` they set), before the operation's own guards. A caller it
   * refuses finds the operation in no list and gets, on every path and in both eras, exactly what
   * an operation nobody serves answers — whatever `auth.lists` says.
   */
  readonly visibleTo?: (caller: McpOperationContext) => boolean | Promise<boolean>;
};

/**
 * The handler of an operation registered at run time: what a decorated method with
 * `@McpArgs() args, @McpContext() ctx` receives — the arguments as validated (and transformed by
 * your pipes), and the operation context of the round — and what it may return.
 *
 * @publicApi
 */
export type McpRuntimeHandler<Args = Record<string, unknown>> = (
  args: Args,
  context: McpOperationContext,
) => unknown;
