import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * This package's version, read from its own package.json at runtime so it needs no build step and
 * works wherever the compiled files end up (dist/, a test transpiler, a bundled sample).
 */
function readPackageVersion(): string {
  let directory = __dirname;
  for (;;) {
    const candidate = join(directory, 'package.json');
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'nestjs-mcp' && typeof manifest.version === 'string')
        return manifest.version;
    }
    const parent = dirname(directory);
    if (parent === directory) return '0.0.0';
    directory = parent;
  }
}

/** @internal */
export const PACKAGE_VERSION: string = readPackageVersion();
