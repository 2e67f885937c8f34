import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { operationCallOf } from '../../src/pipeline/operation-call';
import { ScopedInterceptorsConsumer } from '../../src/kit/scoped-interceptors-consumer';

/**
 * Records, for the suite it is called in, the interceptors Nest's `InterceptorsConsumer` is given
 * for each operation call, by class name, in order (an empty list: no interceptor at all) — Nest's
 * own class, or on Nest 11 the module's subclass of it that operations run with
 * (`ScopedInterceptorsConsumer`). Installed before the suite's tests and removed after them.
 */
export function recordInterceptorChains(): string[][] {
  const chains: string[][] = [];
  const consumers = [InterceptorsConsumer, ScopedInterceptorsConsumer];
  const originals = consumers.map((consumer) =>
    Object.getOwnPropertyDescriptor(consumer.prototype, 'intercept'),
  );
  beforeAll(() => {
    consumers.forEach((consumer, index) => {
      const original = originals[index]?.value as InterceptorsConsumer['intercept'];
      consumer.prototype.intercept = function (interceptors, args, ...rest) {
        if (operationCallOf(args)?.purpose === 'operation')
          chains.push(interceptors.map((interceptor) => interceptor.constructor.name));
        return original.call(this, interceptors, args, ...rest);
      };
    });
  });
  afterAll(() => {
    consumers.forEach((consumer, index) => {
      Object.defineProperty(
        consumer.prototype,
        'intercept',
        originals[index] as PropertyDescriptor,
      );
    });
  });
  return chains;
}
