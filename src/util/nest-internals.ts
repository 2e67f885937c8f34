/**
 * Every deep import of Nest internals, in one place, so a Nest upgrade touches one file. The paths
 * resolve on Nest 11 (no exports map) and Nest 12 (`"./*": "./*.js"`); {@link assertNestInternals}
 * checks at startup that what the module reaches for is still there and names the Nest version
 * when it is not.
 * @internal
 */
import type { ArgumentsHost } from '@nestjs/common';
import { GUARDS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import {
  ExternalContextCreator,
  type ParamsFactory,
} from '@nestjs/core/helpers/external-context-creator';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';

export { ExecutionContextHost, ExternalContextCreator, GUARDS_METADATA, ROUTE_ARGS_METADATA };
export type { InstanceWrapper, ParamsFactory };

/** Runs the exception filters that apply to one handler; `null` when none matches. */
export interface HandlerExceptionFilters {
  invokeCustomFilters(exception: unknown, host: ArgumentsHost): Promise<unknown> | null;
}

interface ExternalContextCreatorInternals {
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
