import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '../../kit/nest-internals';

/** A method of a controller or provider the application built. @internal */
export interface DiscoveredMethod {
  readonly wrapper: InstanceWrapper;
  readonly instance: Record<string, unknown>;
  readonly methodName: string;
  readonly method: (...args: unknown[]) => unknown;
}

/**
 * Every method of every controller and provider instance, controllers first, in Nest's order:
 * what the explorer and the skills extension read their decorators' metadata from.
 * @internal
 */
export function* discoveredMethods(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
): Generator<DiscoveredMethod> {
  for (const wrapper of [...discovery.getControllers(), ...discovery.getProviders()]) {
    const instance = wrapper.instance as Record<string, unknown> | undefined;
    if (!instance || typeof instance !== 'object') continue;
    const prototype = Object.getPrototypeOf(instance) as object | null;
    if (!prototype) continue;
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      const method = instance[methodName];
      if (typeof method === 'function')
        yield { wrapper, instance, methodName, method: method as DiscoveredMethod['method'] };
    }
  }
}
