import { AsyncResource } from 'node:async_hooks';
import type { CallHandler, ContextType, NestInterceptor } from '@nestjs/common';
import { defer, mergeAll, type Observable } from 'rxjs';
import {
  type ExternalContextCreator,
  InterceptorsConsumer,
  nestMajorVersion,
} from './nest-internals';

/**
 * Nest's interceptor chain as Nest 12 runs it, for operations on Nest 11: each link runs in the
 * async scope it was made in (an `AsyncResource` per link, `runInAsyncScope`), but without
 * `AsyncResource.bind`. Nest 11 binds each link with `AsyncResource.bind`, which defines a
 * deprecated accessor (`asyncResource`) on every bound function; V8 keeps a function with an
 * accessor of its own, and everything its closure reaches — the whole call — alive through the
 * young-generation collections, so every call through interceptors is promoted to the old
 * generation: 15–25 ms scavenges under load instead of under 1 ms, and the tail latency with them
 * (docs/performance.md). Nest 12 made this change itself (`bindAsyncScope`); the chain, the context
 * each interceptor is given and the order are Nest's own, unchanged.
 * @internal
 */
export class ScopedInterceptorsConsumer extends InterceptorsConsumer {
  override async intercept<TContext extends string = ContextType>(
    interceptors: NestInterceptor[],
    args: unknown[],
    instance: object,
    callback: (...args: unknown[]) => unknown,
    next: () => Promise<unknown>,
    type?: TContext,
  ): Promise<unknown> {
    if (!interceptors || interceptors.length === 0) return next();
    const context = this.createContext(args, instance, callback);
    context.setType<TContext>(type as TContext);
    const nextFn = async (index = 0): Promise<Observable<unknown>> => {
      if (index >= interceptors.length)
        return defer(inAsyncScope(() => this.transformDeferred(next)));
      const handler: CallHandler = {
        handle: () => defer(inAsyncScope(() => nextFn(index + 1))).pipe(mergeAll()),
      };
      return (interceptors[index] as NestInterceptor).intercept(context, handler);
    };
    return defer(() => nextFn()).pipe(mergeAll());
  }
}

/** `fn`, to be called later in the async scope of now. */
function inAsyncScope<T>(fn: () => T): () => T {
  const resource = new AsyncResource('bound-anonymous-fn');
  return () => resource.runInAsyncScope(fn);
}

/**
 * The context creator operations are built with: `contextCreator` itself on Nest 12 and later;
 * on Nest 11, one that runs interceptors with a {@link ScopedInterceptorsConsumer} and is
 * otherwise the application's (its guards, pipes, filters and their configuration). Nest's own
 * routes and other libraries keep Nest's consumer.
 * @internal
 */
export function withScopedInterceptors(
  contextCreator: ExternalContextCreator,
): ExternalContextCreator {
  if (!(nestMajorVersion() < 12)) return contextCreator;
  return Object.create(contextCreator, {
    interceptorsConsumer: { value: new ScopedInterceptorsConsumer() },
  }) as ExternalContextCreator;
}
