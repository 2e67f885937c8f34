import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';

/**
 * What this file promises of the `ioredis` module: a `Redis` client class. Structural, so that no
 * declaration file of this package imports the optional peer; the caller narrows it to
 * `typeof import('ioredis')`.
 * @internal
 */
export interface IoredisModule {
  readonly Redis: abstract new (...args: never[]) => unknown;
}

/**
 * Loads the optional peer dependency `ioredis` when the `redis` option needs it, so apps that do
 * not use Redis never load or install it. A missing package fails startup naming it.
 * @internal
 */
export function loadIoredis(load: (id: string) => unknown = require): IoredisModule {
  try {
    return load('ioredis') as IoredisModule;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    // Only ioredis itself missing; a broken install of one of its own dependencies is rethrown as is.
    if (code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.includes("'ioredis'"))
      throw new InvalidModuleOptionsError(
        'redis',
        'needs the optional peer dependency "ioredis" (npm install ioredis)',
      );
    throw error;
  }
}
