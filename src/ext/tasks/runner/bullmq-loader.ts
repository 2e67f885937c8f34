/**
 * Loads an optional peer dependency the first time a runner needs it, so that an application
 * without it never loads it; a missing one is an error naming the package to install.
 * @internal
 */
export function loadOptionalPeer<T>(name: string, neededBy: string): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch (error) {
    // Only the package itself missing, not something it fails to load.
    const message = (error as { message?: unknown } | null)?.message;
    const missing =
      typeof message === 'string' && message.startsWith(`Cannot find module '${name}'`);
    if (!missing) throw error;
    throw new Error(`${neededBy} needs the "${name}" package: npm install ${name}`, {
      cause: error,
    });
  }
}
