import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '../..');

/** The text of the section under a `#`-heading of a docs page (`README.md` or `docs/<page>`). */
export function docsSection(page: string, heading: string): string {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const start = text.search(
    new RegExp(`\\n#+ ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`),
  );
  if (start < 0) throw new Error(`${page} has no "${heading}" section`);
  const next = text.slice(start + 1).search(/\n#+ /);
  return text.slice(start, next < 0 ? undefined : start + 1 + next);
}

/** The `ts` blocks of a section of a docs page. */
export function docsTsBlocks(page: string, heading: string): string[] {
  return [...docsSection(page, heading).matchAll(/```ts\n([\s\S]*?)```/g)].map(
    (match) => match[1] as string,
  );
}

/**
 * Writes `code` as `<folder>/<name>.ts` under test/.generated, its imports of the package pointing
 * at this checkout's source, beside `companions` (`{ 'orders.service': code }`: the modules of the
 * reader's own app a page imports by relative path, which the page leaves out). Returns its path.
 */
export function writeDocsModule(
  folder: string,
  name: string,
  code: string,
  companions: Record<string, string> = {},
): string {
  const directory = join(ROOT, 'test/.generated', folder);
  mkdirSync(directory, { recursive: true });
  const src = relative(directory, join(ROOT, 'src')).split('\\').join('/');
  for (const [companion, text] of Object.entries(companions))
    writeFileSync(join(directory, `${companion}.ts`), text);
  const file = join(directory, `${name}.ts`);
  writeFileSync(
    file,
    code
      .replace(/from 'nestjs-mcp\/([a-z0-9-]+)'/g, `from '${src}/entry/$1'`)
      .replace(/from 'nestjs-mcp'/g, `from '${src}/index'`),
  );
  return file;
}

/**
 * What the TypeScript compiler reports for `files`, with the project's compiler options (strict,
 * decorators, `nodenext`): one line per diagnostic, `file:line: TS<code> message`; none when they
 * compile. Type-checks what they import only as far as they use it.
 */
export function typeErrors(files: readonly string[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram([...files], {
    ...config.options,
    noEmit: true,
    types: ['node'],
  });
  return files.flatMap((file) => {
    const source = program.getSourceFile(file);
    if (!source) return [`${file}: not compiled`];
    return [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].map((diagnostic) => {
      const line =
        diagnostic.start === undefined
          ? 0
          : source.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      return `${relative(ROOT, file)}:${line}: TS${diagnostic.code} ${message}`;
    });
  });
}
