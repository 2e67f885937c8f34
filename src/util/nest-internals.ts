/**
 * Every deep import of Nest internals, in one place, so a Nest upgrade touches one file.
 * @internal
 */
import type { ArgumentsHost } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { ExternalContextCreator } from '@nestjs/core/helpers/external-context-creator';

export { ExecutionContextHost };

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
  if (!filters || typeof filters.create !== 'function') {
    throw new Error(
      'nestjs-mcp cannot reach the exception filters of this @nestjs/core version; please report it',
    );
  }
  return filters.create(
    instance,
    callback,
    contextCreator.getContextModuleKey(instance.constructor),
  );
}
