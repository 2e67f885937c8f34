/**
 * Loads the optional peer dependency `name` when a feature first needs it, so an application that
 * does not use the feature never installs it. When it cannot be loaded the error says who needs it
 * and how to install it.
 * @internal
 */
export function requireOptionalPeer<T>(name: string, neededBy: string): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch {
    throw new Error(`${neededBy} needs the optional peer dependency ${name} (npm install ${name})`);
  }
}
