/**
 * Every deep import of Nest internals, in one place, so a Nest upgrade touches one file. The paths
 * resolve on Nest 11 (no exports map) and Nest 12 (`"./*": "./*.js"`); {@link assertNestInternals}
 * checks at startup that what the module reaches for is still there and names the Nest version
 * when it is not.
 * @internal
 */
import type { ArgumentsHost } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import {
  ExternalContextCreator,
  type ParamsFactory,
} from '@nestjs/core/helpers/external-context-creator';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';

export {
  EXCEPTION_FILTERS_METADATA,
  ExecutionContextHost,
  ExternalContextCreator,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  InterceptorsConsumer,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
};
export type { InstanceWrapper, ParamsFactory };

/** Runs the exception filters that apply to one handler; `null` when none matches. @internal */
export interface HandlerExceptionFilters {
  invokeCustomFilters(exception: unknown, host: ArgumentsHost): Promise<unknown> | null;
}

/** Nest's `ApplicationConfig`, as far as the module reads it. */
type GlobalEnhancers = Partial<Record<string, () => unknown[]>>;

interface ExternalContextCreatorInternals {
  guardsContextCreator?: { config?: GlobalEnhancers };
  interceptorsContextCreator?: { config?: GlobalEnhancers };
  filtersContextCreator?: {
    create(
      instance: object,
      callback: (...args: never[]) => unknown,
      moduleKey: string,
    ): HandlerExceptionFilters;
  };
}

/** The installed `@nestjs/core` major version (`NaN` when it cannot be read). @internal */
export function nestMajorVersion(): number {
  return Number.parseInt(nestVersion(), 10);
}

/** The installed `@nestjs/core` version, for messages. */
function nestVersion(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('@nestjs/core/package.json') as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function moved(what: string): Error {
  return new Error(
    `nestjs-mcp cannot use @nestjs/core ${nestVersion()}: ${what} has moved or changed. ` +
      'Use a Nest version the package supports (11 or 12) and report the version to the project.',
  );
}

/**
 * Checks that the Nest internals the module relies on are where it expects them, so a Nest
 * release that moves one fails at startup with its version named, not on the first call.
 * @internal
 */
export function assertNestInternals(contextCreator: ExternalContextCreator): void {
  if (typeof ExecutionContextHost !== 'function' || !('setType' in ExecutionContextHost.prototype))
    throw moved('ExecutionContextHost (@nestjs/core/helpers/execution-context-host)');
  if (typeof contextCreator?.create !== 'function')
    throw moved('ExternalContextCreator.create (@nestjs/core/helpers/external-context-creator)');
  const filters = (contextCreator as unknown as ExternalContextCreatorInternals)
    .filtersContextCreator;
  if (!filters || typeof filters.create !== 'function')
    throw moved('ExternalContextCreator.filtersContextCreator');
  if (
    typeof InterceptorsConsumer !== 'function' ||
    !(
      (contextCreator as unknown as { interceptorsConsumer?: unknown })
        .interceptorsConsumer instanceof InterceptorsConsumer
    )
  )
    throw moved('ExternalContextCreator.interceptorsConsumer');
  if (
    [
      ROUTE_ARGS_METADATA,
      GUARDS_METADATA,
      INTERCEPTORS_METADATA,
      PIPES_METADATA,
      EXCEPTION_FILTERS_METADATA,
    ].some((key) => typeof key !== 'string')
  )
    throw moved('the enhancer metadata keys (@nestjs/common/constants)');
}

/**
 * The exception filters (global, class and method) of a handler, as `ExternalContextCreator` would
 * apply them. The module runs them itself so it keeps the original exception next to what a filter
 * made of it.
 * @internal
 */
export function handlerExceptionFilters(
  contextCreator: ExternalContextCreator,
  instance: object,
  callback: (...args: never[]) => unknown,
): HandlerExceptionFilters {
  const filters = (contextCreator as unknown as ExternalContextCreatorInternals)
    .filtersContextCreator;
  if (!filters || typeof filters.create !== 'function')
    throw moved('ExternalContextCreator.filtersContextCreator');
  return filters.create(
    instance,
    callback,
    contextCreator.getContextModuleKey(instance.constructor),
  );
}

/** Whether `metadataKey` names a non-empty list of enhancers on `target`. */
function declaresAny(metadataKey: string, target: object): boolean {
  const declared: unknown = Reflect.getMetadata(metadataKey, target);
  return Array.isArray(declared) && declared.length > 0;
}

/**
 * Whether `method` of `instance` may run enhancers of `kind`: its own, its class's, or global ones
 * (`useGlobalGuards`/`APP_GUARD`, `useGlobalInterceptors`/`APP_INTERCEPTOR`), as Nest would collect
 * them when building the handler. `true` when Nest's configuration cannot be read, so a shortcut
 * taken only without them is never taken wrongly.
 * @internal
 */
export function mayHaveEnhancers(
  kind: 'guards' | 'interceptors',
  contextCreator: ExternalContextCreator,
  instance: object,
  method: (...args: never[]) => unknown,
): boolean {
  const [key, name] =
    kind === 'guards' ? [GUARDS_METADATA, 'Guards'] : [INTERCEPTORS_METADATA, 'Interceptors'];
  if (declaresAny(key, instance.constructor) || declaresAny(key, method)) return true;
  const internals = contextCreator as unknown as ExternalContextCreatorInternals;
  const config = (
    kind === 'guards' ? internals.guardsContextCreator : internals.interceptorsContextCreator
  )?.config;
  const global = config?.[`getGlobal${name}`];
  const requestScoped = config?.[`getGlobalRequest${name}`];
  if (typeof global !== 'function' || typeof requestScoped !== 'function') return true;
  return global.call(config).length > 0 || requestScoped.call(config).length > 0;
}
