/**
 * Every deep import of Nest internals, in one place, so a Nest upgrade touches one file. The paths
 * resolve on Nest 11 (no exports map) and Nest 12 (`"./*": "./*.js"`); {@link assertNestInternals}
 * checks at startup that what the module reaches for is still there and names the Nest version
 * when it is not.
 * @internal
 */
import type { ArgumentsHost } from '@nestjs/common';
import {
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import {
  ExternalContextCreator,
  type ParamsFactory,
} from '@nestjs/core/helpers/external-context-creator';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';

export {
  ExecutionContextHost,
  ExternalContextCreator,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  ROUTE_ARGS_METADATA,
};
export type { InstanceWrapper, ParamsFactory };

/** Runs the exception filters that apply to one handler; `null` when none matches. */
export interface HandlerExceptionFilters {
  invokeCustomFilters(exception: unknown, host: ArgumentsHost): Promise<unknown> | null;
}

interface ExternalContextCreatorInternals {
  guardsContextCreator?: {
    config?: { getGlobalGuards?(): unknown[]; getGlobalRequestGuards?(): unknown[] };
  };
  filtersContextCreator?: {
    create(
      instance: object,
      callback: (...args: never[]) => unknown,
      moduleKey: string,
    ): HandlerExceptionFilters;
  };
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
  if (typeof ROUTE_ARGS_METADATA !== 'string' || typeof GUARDS_METADATA !== 'string')
    throw moved('ROUTE_ARGS_METADATA / GUARDS_METADATA (@nestjs/common/constants)');
}

/**
 * The exception filters (global, class and method) of a handler, as `ExternalContextCreator` would
 * apply them. The module runs them itself so it keeps the original exception next to what a filter
 * made of it.
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
 * Whether a guard may apply to `method` of `instance` when `ExternalContextCreator` builds its
 * handler: a global guard (static or request-scoped, `useGlobalGuards` or `APP_GUARD`), or
 * `@UseGuards` on the class or on the method (which a scoped operation's scope check is). Where
 * it cannot tell, it says yes: the answer only lets callers skip running guards that are not there.
 */
export function mayHaveGuards(
  contextCreator: ExternalContextCreator,
  instance: object,
  method: (...args: never[]) => unknown,
): boolean {
  if (declaresAny(GUARDS_METADATA, instance.constructor) || declaresAny(GUARDS_METADATA, method))
    return true;
  const config = (contextCreator as unknown as ExternalContextCreatorInternals).guardsContextCreator
    ?.config;
  if (
    typeof config?.getGlobalGuards !== 'function' ||
    typeof config.getGlobalRequestGuards !== 'function'
  )
    return true;
  return config.getGlobalGuards().length > 0 || config.getGlobalRequestGuards().length > 0;
}
