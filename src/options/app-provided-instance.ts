import type { ModulesContainer } from '@nestjs/core';
import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';

/**
 * The instance an application provides under `token` in any of its modules, so that a provider
 * such as `{ provide: RequestStateProtector, useExisting: KmsProtector }` in the app module is
 * honoured wherever it is declared. Two different instances, or one that is not a singleton,
 * fail startup naming the modules.
 */
function findAppProvidedInstance<T>(
  modules: ModulesContainer,
  token: symbol,
  option: string,
  isModulesOwn: (instance: unknown) => boolean,
): T | undefined {
  const found: { instance: T; module: string }[] = [];
  for (const module of modules.values()) {
    const wrapper = module.providers.get(token);
    if (!wrapper || isModulesOwn(wrapper.instance)) continue;
    const moduleName = module.metatype?.name ?? 'a module';
    if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
      throw new InvalidModuleOptionsError(
        option,
        `the ${String(token.description)} provided in ${moduleName} must be a singleton (not request-scoped or transient)`,
      );
    }
    const instance = wrapper.instance as T | undefined;
    if (instance && !found.some((entry) => entry.instance === instance)) {
      found.push({ instance, module: moduleName });
    }
  }
  if (found.length > 1) {
    throw new InvalidModuleOptionsError(
      option,
      `${String(token.description)} is provided with different instances in ${found.map((entry) => entry.module).join(' and ')}; provide it once`,
    );
  }
  return found[0]?.instance;
}

/**
 * The one instance of `token` the module should use: the module option `option` (`fromOptions`)
 * or what the application provides under the token, never two different ones; `undefined` when
 * neither is given (the caller then uses its default). `isModulesOwn` tells the module's own
 * providers of the token (its ports' forwarding objects) from the application's.
 * @internal
 */
export function providedInstance<T>(
  modules: ModulesContainer,
  token: symbol,
  option: string,
  fromOptions: T | undefined,
  isModulesOwn: (instance: unknown) => boolean,
): T | undefined {
  const fromApp = findAppProvidedInstance<T>(modules, token, option, isModulesOwn);
  if (fromOptions !== undefined && fromApp !== undefined && fromOptions !== fromApp) {
    throw new InvalidModuleOptionsError(
      option,
      `is set in the McpModule options and a different ${String(token.description)} is provided by the application; keep one`,
    );
  }
  return fromOptions ?? fromApp;
}
