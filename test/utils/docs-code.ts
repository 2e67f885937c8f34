import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The first `ts` block under the heading `heading` (e.g. `## Health`) of the page `page`. */
export function docsCode(page: string, heading: string): string {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${page} has no "${heading}" section`);
  const code = /```ts\n([\s\S]*?)```/.exec(text.slice(start))?.[1];
  if (code === undefined) throw new Error(`"${heading}" of ${page} has no ts block`);
  return code;
}

/**
 * Writes `code` as `test/.generated/<name>.ts`, the package's import names (and the module names
 * in `modules`) pointing at this checkout, and requires it — with the environment `env` set while
 * it loads, as an app starts with its variables.
 */
export function loadGenerated<T>(
  name: string,
  code: string,
  options: { modules?: Record<string, string>; env?: Record<string, string | undefined> } = {},
): T {
  const modules: Record<string, string> = {
    ...options.modules,
    'nestjs-mcp/testing': '../../src/entry/testing',
    'nestjs-mcp/health': '../../src/entry/health',
    'nestjs-mcp': '../../src/index',
  };
  let source = code;
  for (const [from, to] of Object.entries(modules))
    source = source.split(`from '${from}'`).join(`from '${to}'`);
  const directory = join(ROOT, 'test', '.generated');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.ts`);
  writeFileSync(file, source);
  const env = options.env ?? {};
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  };
  set(env);
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module is written above
    return require(file) as T;
  } finally {
    set(saved);
  }
}
