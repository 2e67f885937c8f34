import type { ModulesContainer } from '@nestjs/core';
import { MODULE_METADATA } from '@nestjs/common/constants';

/**
 * The instances of provider class `type` in the application, and the modules whose own
 * `@Module({ imports })` name a module of the kind that holds them (a global module is linked into
 * every module, so Nest's own import graph would name them all): how a second `McpModule` on the
 * same endpoint is named at startup.
 * @internal
 */
export function providerOwners<T>(
  modules: ModulesContainer,
  type: abstract new (...args: never[]) => T,
): { instances: T[]; importedBy: string[] } {
  const instances: T[] = [];
  const hostTypes = new Set<unknown>();
  for (const host of modules.values()) {
    const instance = host.providers.get(type)?.instance as T | undefined;
    if (!(instance instanceof type)) continue;
    instances.push(instance);
    hostTypes.add(host.metatype);
  }
  const importedBy = [...modules.values()]
    .filter((candidate) => {
      const declared = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, candidate.metatype) ??
        []) as unknown[];
      return declared.some(
        (entry) =>
          hostTypes.has(entry) || hostTypes.has((entry as { module?: unknown } | null)?.module),
      );
    })
    .map((candidate) => candidate.metatype.name);
  return { instances, importedBy };
}
