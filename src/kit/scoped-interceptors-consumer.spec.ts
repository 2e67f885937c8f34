import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { lastValueFrom, map, Observable } from 'rxjs';
import {
  InterceptorsConsumer,
  nestMajorVersion,
  type ExternalContextCreator,
} from './nest-internals';
import { ScopedInterceptorsConsumer, withScopedInterceptors } from './scoped-interceptors-consumer';

describe('ScopedInterceptorsConsumer', () => {
  const consumer = new ScopedInterceptorsConsumer();
  const instance = new (class Tools {})();
  const callback = () => undefined;

  it('runs the chain outermost first, each link around the next, the method last', async () => {
    const order: string[] = [];
    const link = (name: string): NestInterceptor => ({
      intercept: (_context: ExecutionContext, next: CallHandler) => {
        order.push(`${name} in`);
        return next.handle().pipe(map((value: unknown) => `${name}(${String(value)})`));
      },
    });
    const ran = await consumer.intercept(
      [link('outer'), link('inner')],
      [],
      instance,
      callback,
      () => {
        order.push('method');
        return Promise.resolve('result');
      },
    );
    expect(await lastValueFrom(ran as Observable<unknown>)).toBe('outer(inner(result))');
    expect(order).toEqual(['outer in', 'inner in', 'method']);
  });

  it('gives each link the call’s context with its type, and calls the method directly without links', async () => {
    const seen: string[] = [];
    const typed: NestInterceptor = {
      intercept: (context: ExecutionContext, next: CallHandler) => {
        seen.push(context.getType(), context.getClass().name);
        return next.handle();
      },
    };
    const ran = await consumer.intercept(
      [typed],
      ['arg'],
      instance,
      callback,
      () => Promise.resolve(1),
      'mcp',
    );
    expect(await lastValueFrom(ran as Observable<unknown>)).toBe(1);
    expect(seen).toEqual(['mcp', 'Tools']);
    expect(
      await consumer.intercept([], [], instance, callback, () => Promise.resolve('direct')),
    ).toBe('direct');
  });

  it('runs the next links in the async context a link subscribes them in', async () => {
    const store = new AsyncLocalStorage<string>();
    const scope: NestInterceptor = {
      intercept: (_context: ExecutionContext, next: CallHandler) =>
        new Observable((subscriber) =>
          store.run('scoped', () => next.handle().subscribe(subscriber)),
        ),
    };
    const ran = await consumer.intercept([scope], [], instance, callback, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return store.getStore();
    });
    expect(await lastValueFrom(ran as Observable<unknown>)).toBe('scoped');
  });

  it('binds no link with AsyncResource.bind (whose accessor made V8 keep every call alive)', async () => {
    const bind = jest.spyOn(AsyncResource, 'bind');
    try {
      const link: NestInterceptor = { intercept: (_context, next) => next.handle() };
      const ran = await consumer.intercept([link, link], [], instance, callback, () =>
        Promise.resolve(1),
      );
      expect(await lastValueFrom(ran as Observable<unknown>)).toBe(1);
      expect(bind).not.toHaveBeenCalled();
    } finally {
      bind.mockRestore();
    }
  });
});

describe('withScopedInterceptors', () => {
  it('gives operations the scoped consumer on Nest 11 and Nest’s own on later versions', () => {
    const nests = new InterceptorsConsumer();
    const creator = {
      interceptorsConsumer: nests,
      filtersContextCreator: { create: () => undefined },
    } as unknown as ExternalContextCreator;
    const forOperations = withScopedInterceptors(creator) as unknown as {
      interceptorsConsumer: unknown;
      filtersContextCreator: unknown;
    };
    if (nestMajorVersion() < 12) {
      expect(forOperations.interceptorsConsumer).toBeInstanceOf(ScopedInterceptorsConsumer);
      expect(forOperations.filtersContextCreator).toBe(
        (creator as unknown as { filtersContextCreator: unknown }).filtersContextCreator,
      );
      expect((creator as unknown as { interceptorsConsumer: unknown }).interceptorsConsumer).toBe(
        nests,
      );
    } else {
      expect(forOperations).toBe(creator);
    }
  });
});
