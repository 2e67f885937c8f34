import { Logger, HttpException, type CanActivate } from '@nestjs/common';
import { ProtocolError } from '@modelcontextprotocol/server';
import { isObservable, lastValueFrom } from 'rxjs';
import { McpToolError } from '../kit/errors/mcp-tool.error';
import { withScopedInterceptors } from '../kit/scoped-interceptors-consumer';
import {
  ExecutionContextHost,
  GUARDS_METADATA,
  handlerExceptionFilters,
  INTERCEPTORS_METADATA,
  mayHaveEnhancers,
  ROUTE_ARGS_METADATA,
  type ExternalContextCreator,
  type HandlerExceptionFilters,
} from '../kit/nest-internals';
import { MCP_CONTEXT_TYPE } from '../kit/mcp.constants';
import type { ArgumentsValidator } from './validation/arguments-validator.interface';
import {
  ArgumentsValidationGuard,
  ArgumentsValidationInterceptor,
} from './arguments-validation.step';
import type { LibraryInterceptor } from './library-interceptor';
import { McpHttpResponse } from './mcp-http-response';
import { McpParamsFactory } from './mcp-params.factory';
import { operationCallOf, type OperationCall } from './operation-call';

/** Runs one MCP call through the Nest pipeline of an operation. @internal */
export type OperationHandler = (call: OperationCall) => Promise<unknown>;

type Callback = (...args: unknown[]) => unknown;
type NestHandler = (...args: unknown[]) => Promise<unknown>;

/**
 * What the module adds to an operation's pipeline, innermost of everything the app applies.
 * @internal
 */
export interface LibrarySteps {
  /** Validates the arguments first, when the operation advertises a schema. */
  readonly argumentsValidator: ArgumentsValidator | undefined;
  /** The module's own interceptors, outermost first. */
  readonly interceptors: readonly LibraryInterceptor[];
  /** The last guard, awaited before anything else of the call runs (a strict audit trail's). */
  readonly startedGuard?: CanActivate;
}

const logger = new Logger('McpModule');

/** Errors a filter throws on purpose to answer differently; anything else is a failing filter. */
function isDeliberate(error: unknown): boolean {
  return (
    error instanceof ProtocolError ||
    error instanceof HttpException ||
    error instanceof McpToolError
  );
}

/**
 * A stand-in for `method` that runs `body` and carries a copy of the method's metadata (guards,
 * interceptors, filters, `SetMetadata` values): Nest reads enhancers from the callback it is given,
 * so the application's enhancers apply to it, and the user's method object is never changed.
 */
function standIn(method: Callback, body: (call: OperationCall) => unknown): Callback {
  const callback = function (this: unknown, ...args: unknown[]) {
    return body(operationCallOf(args) as OperationCall);
  };
  Object.defineProperty(callback, 'name', { value: method.name });
  for (const key of Reflect.getMetadataKeys(method)) {
    Reflect.defineMetadata(key, Reflect.getMetadata(key, method), callback);
  }
  return callback;
}

/**
 * `method` with `innermost` appended to its interceptors (or guards): a function that calls it,
 * carrying a copy of its metadata (guards, interceptors, filters, `SetMetadata` values), so Nest
 * runs the application's global, class and method enhancers and then these, right around the
 * pipes and the method — and the user's method object is never changed.
 */
function withAppended(method: Callback, key: string, innermost: readonly object[]): Callback {
  const callback = function (this: unknown, ...args: unknown[]) {
    return method.apply(this, args);
  };
  Object.defineProperty(callback, 'name', { value: method.name });
  for (const key of Reflect.getMetadataKeys(method)) {
    Reflect.defineMetadata(key, Reflect.getMetadata(key, method), callback);
  }
  const own = (Reflect.getMetadata(key, method) ?? []) as unknown[];
  Reflect.defineMetadata(key, [...own, ...innermost], callback);
  return callback;
}

/**
 * Builds the handlers through which MCP calls run the full Nest pipeline with context type
 * `'mcp'`: global, class and method guards, interceptors, pipes and exception filters. Nest's
 * handlers are called `(httpRequest, httpResponse, next, call)`, so `switchToHttp()` tells the
 * truth and every enhancer finds the call by position.
 *
 * An operation with library steps gets them as its innermost interceptors, in Nest's own chain:
 * guards → the application's interceptors → capability gating (argument validation first) → state
 * protection → pipes → method; an operation that declares no input or state, argument validation
 * alone. Each link of Nest's chain costs every call (an `AsyncResource` per link), so there are
 * as few as the steps allow.
 */
const ARGUMENTS_VALIDATION = new ArgumentsValidationInterceptor();
const ARGUMENTS_VALIDATION_GUARD = new ArgumentsValidationGuard();

/** @internal */
export class OperationPipelineFactory {
  private readonly paramsFactory = new McpParamsFactory();

  private readonly contextCreator: ExternalContextCreator;

  constructor(contextCreator: ExternalContextCreator) {
    this.contextCreator = withScopedInterceptors(contextCreator);
  }

  /** The handler of an operation method, with the library steps it needs (each costs every call). */
  forMethod(instance: object, methodName: string, steps: LibrarySteps): OperationHandler {
    const method = (instance as Record<string, Callback>)[methodName];
    return this.build(instance, methodName, this.withLibrarySteps(instance, method, steps), {
      guards: true,
      interceptors: true,
    });
  }

  /**
   * `method` with the library steps it needs. Capability gating validates the arguments itself
   * (one link of Nest's chain for both); argument validation alone is the last guard when the
   * application applies no interceptor to the method, so that Nest's chain is not entered at all.
   */
  private withLibrarySteps(instance: object, method: Callback, steps: LibrarySteps): Callback {
    const inner = this.withInnerSteps(instance, method, steps);
    return steps.startedGuard ? withAppended(inner, GUARDS_METADATA, [steps.startedGuard]) : inner;
  }

  private withInnerSteps(instance: object, method: Callback, steps: LibrarySteps): Callback {
    if (steps.interceptors.length > 0)
      return withAppended(method, INTERCEPTORS_METADATA, steps.interceptors);
    if (!steps.argumentsValidator) return method;
    return mayHaveEnhancers('interceptors', this.contextCreator, instance, method)
      ? withAppended(method, INTERCEPTORS_METADATA, [ARGUMENTS_VALIDATION])
      : withAppended(method, GUARDS_METADATA, [ARGUMENTS_VALIDATION_GUARD]);
  }

  /**
   * A handler that runs `body(call)` instead of the method, under the method's guards,
   * interceptors and filters (used for `completion/complete`). It takes no parameters, so no pipe
   * sees the operation's DTO.
   */
  forMethodWith(
    instance: object,
    methodName: string,
    body: (call: OperationCall) => unknown,
  ): OperationHandler {
    const method = (instance as Record<string, Callback>)[methodName];
    return this.build(instance, `${methodName}#completion`, standIn(method, body), {
      guards: true,
      interceptors: true,
    });
  }

  /**
   * A handler that runs only the method's guards (global, class and method ones) and then
   * nothing: what authenticates a caller (a passport guard setting `req.user`) before the module
   * decides whose a task is. A refusing guard throws as it would for a call. `undefined` when no
   * guard applies to the method.
   */
  forGuards(instance: object, methodName: string): OperationHandler | undefined {
    const method = (instance as Record<string, Callback>)[methodName];
    if (!mayHaveEnhancers('guards', this.contextCreator, instance, method)) return undefined;
    const target = this.nestHandler(
      instance,
      `${methodName}#guards`,
      standIn(method, () => undefined),
      { guards: true, interceptors: false, filters: false },
    );
    return (call) => target(call.request, new McpHttpResponse(call.http.response), undefined, call);
  }

  /** Nest's own handler for `callback`: its enhancers, with context type `'mcp'`. */
  private nestHandler(
    instance: object,
    methodKey: string,
    callback: Callback,
    enhancers: { guards: boolean; interceptors: boolean; filters: boolean },
  ): NestHandler {
    return this.contextCreator.create(
      instance,
      callback,
      methodKey,
      ROUTE_ARGS_METADATA,
      this.paramsFactory,
      undefined,
      undefined,
      enhancers,
      MCP_CONTEXT_TYPE,
    ) as NestHandler;
  }

  /** `callback` under its enhancers, its errors shown to the application's exception filters. */
  private build(
    instance: object,
    methodKey: string,
    callback: Callback,
    enhancers: { guards: boolean; interceptors: boolean },
  ): OperationHandler {
    // Filters run below, where the original exception stays at hand.
    const target = this.nestHandler(instance, methodKey, callback, {
      ...enhancers,
      filters: false,
    });
    const filters = handlerExceptionFilters(this.contextCreator, instance, callback);
    return async (call) => {
      const response = new McpHttpResponse(call.http.response);
      const args = [call.request, response, undefined, call];
      try {
        return await target(...args);
      } catch (error) {
        return this.filter(error, args, instance, callback, filters, response);
      }
    };
  }

  /**
   * Lets the application's exception filters see the error. A filter written for HTTP (it
   * replies through the response, or returns nothing) leaves the documented MCP mapping of the
   * original error in place; an MCP-aware filter takes over by returning a result or throwing a
   * `ProtocolError`, `HttpException` or `McpToolError`.
   */
  private async filter(
    error: unknown,
    args: unknown[],
    instance: object,
    callback: Callback,
    filters: HandlerExceptionFilters,
    response: McpHttpResponse,
  ): Promise<unknown> {
    const host = new ExecutionContextHost(args, instance.constructor as never, callback);
    host.setType(MCP_CONTEXT_TYPE);
    let outcome: unknown;
    try {
      outcome = filters.invokeCustomFilters(error, host);
      if (outcome === null) throw error;
      outcome = isObservable(outcome) ? await lastValueFrom(outcome) : await outcome;
    } catch (thrown) {
      if (thrown === error || isDeliberate(thrown)) throw thrown;
      logger.warn(
        `An exception filter failed while handling an MCP call (${thrown instanceof Error ? thrown.name : typeof thrown}); the original error is answered`,
      );
      throw error;
    }
    if (outcome === undefined || outcome === null || outcome === response || response.written)
      throw error;
    return outcome;
  }
}
