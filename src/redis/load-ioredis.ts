import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';

/** The `ioredis` module's exports. */
export type IoredisModule = typeof import('ioredis');

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
