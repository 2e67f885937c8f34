import { Logger, HttpException, type CanActivate } from '@nestjs/common';
import { GUARDS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import type { ExternalContextCreator } from '@nestjs/core/helpers/external-context-creator';
import { ProtocolError } from '@modelcontextprotocol/server';
import { isObservable, lastValueFrom } from 'rxjs';
import { McpHttpResponse } from './mcp-http-response';
import { McpParamsFactory } from './mcp-params.factory';
import {
  ExecutionContextHost,
  handlerExceptionFilters,
  type HandlerExceptionFilters,
} from '../util/nest-internals';
import { McpToolError } from '../errors/mcp-tool.error';
import type { McpHttpRequest } from '../interfaces/mcp-request-context.interface';
import { MCP_CONTEXT_TYPE } from '../util/mcp.constants';
import { internalError } from '../errors/internal-error';
import { operationCallOf, type McpOperationCall } from './mcp-operation-call';
import { operationScope } from './operation-scope';

/** Runs one MCP call through the Nest pipeline of an operation. */
export type OperationHandler = (
  call: McpOperationCall,
  request: McpHttpRequest,
  response: McpHttpResponse,
) => Promise<unknown>;

type Callback = (...args: unknown[]) => unknown;

/** What the library adds to an operation's pipeline. */
export interface LibrarySteps {
  /** Run after the application's guards. */
  readonly guards: readonly CanActivate[];
  /** Receives what the method returned, inside every interceptor and after the pipes. */
  readonly after?: (call: McpOperationCall, returned: unknown) => unknown;
}

const NO_STEPS: LibrarySteps = { guards: [] };

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
 * A stand-in for `method` that carries a copy of its metadata (guards, interceptors, filters,
 * `SetMetadata` values), with the library's guards appended as the last guards and its `after`
 * step wrapped right around the method. Nest reads enhancers from the callback it is given, so
 * the user's method object is never changed.
 */
function pipelineCallback(method: Callback, body: Callback, steps: LibrarySteps): Callback {
  const after = steps.after;
  const callback = after
    ? function (this: unknown, ...args: unknown[]) {
        // Nest hands the method only its parameters: the call comes from the call's scope.
        const call = operationScope.current()?.call;
        if (!call) {
          logger.error(
            `MCP operation ${method.name}() was reached outside its call (an interceptor ran the handler in another async context); refused`,
          );
          throw internalError();
        }
        let returned: unknown;
        try {
          returned = body.apply(this, args);
        } catch (error) {
          returned = Promise.reject(error);
        }
        return after(call, returned);
      }
    : function (this: unknown, ...args: unknown[]) {
        return body.apply(this, args);
      };
  Object.defineProperty(callback, 'name', { value: method.name });
  for (const key of Reflect.getMetadataKeys(method)) {
    Reflect.defineMetadata(key, Reflect.getMetadata(key, method), callback);
  }
  if (steps.guards.length > 0) {
    const ownGuards = (Reflect.getMetadata(GUARDS_METADATA, method) ?? []) as unknown[];
    Reflect.defineMetadata(GUARDS_METADATA, [...ownGuards, ...steps.guards], callback);
  }
  return callback;
}

/**
 * Builds the handlers through which MCP calls run the full Nest pipeline with context type
 * `'mcp'`: global, class and method guards, interceptors, pipes and exception filters. Handlers
 * are called `(httpRequest, httpResponse, next, call)`, so `switchToHttp()` tells the truth.
 */
export class OperationPipelineFactory {
  private readonly paramsFactory = new McpParamsFactory();

  constructor(private readonly contextCreator: ExternalContextCreator) {}

  /**
   * The handler of an operation method, with the library steps it needs (each step costs every
   * call, so operations get only theirs).
   */
  forMethod(instance: object, methodName: string, steps: LibrarySteps): OperationHandler {
    const method = (instance as Record<string, Callback>)[methodName];
    return this.build(instance, methodName, method, method, steps);
  }

  /**
   * A handler that runs `body(call)` instead of the method, under the method's guards,
   * interceptors and filters (used for `completion/complete`). It takes no parameters, so no pipe
   * sees the operation's DTO.
   */
  forMethodWith(
    instance: object,
    methodName: string,
    body: (call: McpOperationCall) => unknown,
  ): OperationHandler {
    const method = (instance as Record<string, Callback>)[methodName];
    // No library step applies to a completion.
    return this.build(
      instance,
      `${methodName}#completion`,
      method,
      (...args: unknown[]) => body(operationCallOf(args) as McpOperationCall),
      NO_STEPS,
    );
  }

  /**
   * A handler that runs only the method's guards (global, class and method ones) and then
   * nothing: what authenticates a caller (a passport guard setting `req.user`) before the module
   * decides whose a task is. A refusing guard throws as it would for a call.
   */
  forGuards(instance: object, methodName: string): OperationHandler {
    const method = (instance as Record<string, Callback>)[methodName];
    const target = this.nestHandler(
      instance,
      `${methodName}#guards`,
      pipelineCallback(method, () => undefined, NO_STEPS),
      { guards: true, interceptors: false, filters: false },
    );
    return (call, request, response) => target(request, response, undefined, call);
  }

  /** Nest's own handler for `callback`: its enhancers, with context type `'mcp'`. */
  private nestHandler(
    instance: object,
    methodKey: string,
    callback: Callback,
    enhancers: { guards: boolean; interceptors: boolean; filters: boolean },
  ): (...args: unknown[]) => Promise<unknown> {
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
    ) as (...args: unknown[]) => Promise<unknown>;
  }

  private build(
    instance: object,
    methodKey: string,
    method: Callback,
    body: Callback,
    steps: LibrarySteps,
  ): OperationHandler {
    const callback = pipelineCallback(method, body, steps);
    // Filters run below, where the original exception stays at hand.
    const target = this.nestHandler(instance, methodKey, callback, {
      guards: true,
      interceptors: true,
      filters: false,
    });
    const filters = handlerExceptionFilters(this.contextCreator, instance, callback);
    return async (call, request, response) => {
      const args = [request, response, undefined, call];
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
