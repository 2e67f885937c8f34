import { InterceptorsConsumer } from '@nestjs/core/interceptors/interceptors-consumer';
import { operationCallOf } from '../../src/pipeline/operation-call';

/**
 * Records, for the suite it is called in, the interceptors Nest's own `InterceptorsConsumer` is
 * given for each operation call, by class name, in order (an empty list: no interceptor at all).
 * Installed before the suite's tests and removed after them.
 */
export function recordInterceptorChains(): string[][] {
  const chains: string[][] = [];
  const original = InterceptorsConsumer.prototype.intercept;
  beforeAll(() => {
    InterceptorsConsumer.prototype.intercept = function (interceptors, args, ...rest) {
      if (operationCallOf(args)?.purpose === 'operation')
        chains.push(interceptors.map((interceptor) => interceptor.constructor.name));
      return original.call(this, interceptors, args, ...rest);
    };
  });
  afterAll(() => {
    InterceptorsConsumer.prototype.intercept = original;
  });
  return chains;
}
