#!/usr/bin/env node
// Checks what the published declaration files (dist/**/*.d.ts) import, so that an app compiled
// with `skipLibCheck: false` type-checks with only the packages it must install:
// - a package import must name a dependency, a required peer dependency or a Node built-in;
// - an optional peer (ioredis, bullmq, @nestjs/throttler) is allowed only in declarations that
//   only the export subpaths listed for it in OPTIONAL_PEER_SUBPATHS reach (@nestjs/throttler:
//   `nestjs-mcp/throttler`);
// - every relative import must resolve to a shipped declaration file.
// Imports are read with TypeScript's own scanner (import/export … from, import("…") types,
// require, triple-slash references), so type-only and inline imports count too.
// Then what they declare (the build strips every `@internal` declaration, stripInternal):
// - every declaration type-checks with `skipLibCheck: false`, so no public signature names a type
//   that was stripped;
// - no `@internal` is left in them;
// - every exported declaration is reached from an entry point (by name, or through the types of
//   one that is): anything else is internal and must say so (`@internal`), so it does not ship.
//
// Usage: node scripts/check-declarations.mjs   (run by `npm run build`)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * For each optional peer dependency, the export subpaths (keys of package.json `exports`, e.g.
 * `'./redis'`) whose declarations may import it. A declaration that imports the peer must be
 * reached only from these subpaths, never from `.` or any other one.
 */
export const OPTIONAL_PEER_SUBPATHS = {
  ioredis: [],
  bullmq: [],
  '@nestjs/throttler': ['./throttler'],
  '@opentelemetry/api': [],
  '@nestjs/terminus': ['./health'],
};

/** The package an import specifier names (`@scope/name/deep` → `@scope/name`), or undefined. */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function isBuiltin(specifier) {
  return specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]);
}

/** Every `.d.ts` under `dir`, as paths relative to `root` with `/` separators. */
function declarationsUnder(root, dir) {
  const out = [];
  const walk = (abs) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.d.ts')) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  if (existsSync(join(root, dir))) walk(join(root, dir));
  return out.sort();
}

/** The `types` targets of package.json `exports`, by subpath (`'.'`, `'./testing'`, …). */
function typesEntries(manifest) {
  const entries = new Map();
  const typesOf = (target) => {
    if (typeof target === 'string') return target.endsWith('.d.ts') ? [target] : [];
    if (!target || typeof target !== 'object') return [];
    return Object.entries(target).flatMap(([condition, value]) =>
      condition === 'types' && typeof value === 'string' ? [value] : typesOf(value),
    );
  };
  const exportsMap = manifest.exports ?? {};
  const bySubpath =
    typeof exportsMap === 'string' || Object.keys(exportsMap).every((key) => !key.startsWith('.'))
      ? { '.': exportsMap }
      : exportsMap;
  for (const [subpath, target] of Object.entries(bySubpath)) {
    const found = typesOf(target);
    if (found.length > 0)
      entries.set(
        subpath,
        found.map((file) => posix.normalize(file)),
      );
  }
  if (!entries.has('.') && manifest.types) entries.set('.', [posix.normalize(manifest.types)]);
  return entries;
}

/**
 * The problems of the declarations under `root/dist` (an empty list when there are none), read
 * against `root/package.json`. `ts` is the TypeScript module; `optionalPeerSubpaths` as
 * {@link OPTIONAL_PEER_SUBPATHS}.
 */
export function checkDeclarations(root, ts, optionalPeerSubpaths = OPTIONAL_PEER_SUBPATHS) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const optional = new Set(
    Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta?.optional)
      .map(([name]) => name),
  );
  const allowed = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optional.has(name)),
  ]);
  const files = declarationsUnder(root, 'dist');
  const shipped = new Set(files);
  const problems = [];
  /** Relative imports of each file, resolved; optional peers each file imports. */
  const localImports = new Map();
  const peerImports = new Map();

  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const specifiers = [
      ...info.importedFiles.map((ref) => ref.fileName),
      ...info.typeReferenceDirectives.map((ref) => ref.fileName),
    ];
    const locals = [];
    const peers = new Set();
    for (const ref of info.referencedFiles) specifiers.push(posix.join('./', ref.fileName));
    for (const specifier of specifiers) {
      const name = packageOf(specifier);
      if (name === undefined) {
        const base = posix.join(posix.dirname(file), specifier).replace(/\.(d\.ts|js)$/, '');
        const target = [`${base}.d.ts`, `${base}/index.d.ts`].find((path) => shipped.has(path));
        if (target) locals.push(target);
        else problems.push(`${file}: imports "${specifier}", which is not a shipped declaration`);
      } else if (isBuiltin(specifier) || specifier === 'node') {
        // Node's own modules and `/// <reference types="node" />`: typed by @types/node.
        continue;
      } else if (optional.has(name)) {
        peers.add(name);
      } else if (!allowed.has(name)) {
        problems.push(
          `${file}: imports "${specifier}", which is not a dependency or required peer dependency`,
        );
      }
    }
    localImports.set(file, locals);
    peerImports.set(file, peers);
  }

  // Which export subpaths reach each declaration through relative imports.
  const reachedFrom = new Map(files.map((file) => [file, new Set()]));
  for (const [subpath, entryFiles] of typesEntries(manifest)) {
    const queue = entryFiles.filter((file) => shipped.has(file));
    for (const file of entryFiles)
      if (!shipped.has(file)) problems.push(`exports["${subpath}"]: ${file} is not shipped`);
    while (queue.length > 0) {
      const file = queue.pop();
      if (reachedFrom.get(file).has(subpath)) continue;
      reachedFrom.get(file).add(subpath);
      queue.push(...localImports.get(file));
    }
  }
  for (const [file, peers] of peerImports) {
    for (const peer of peers) {
      const allowedFrom = new Set(optionalPeerSubpaths[peer] ?? []);
      const subpaths = [...reachedFrom.get(file)];
      const offending = subpaths.filter((subpath) => !allowedFrom.has(subpath));
      if (subpaths.length > 0 && offending.length === 0) continue;
      const where =
        offending.length > 0
          ? `reached from ${offending.map((subpath) => `"${subpath}"`).join(', ')}`
          : 'reached from no export subpath allowed for it';
      problems.push(`${file}: imports the optional peer "${peer}" (${where})`);
    }
  }
  return problems;
}

/** The names an exported top-level statement of a declaration file declares. */
function declaredNamesOf(ts, statement) {
  if (!statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword))
    return [];
  if (ts.isVariableStatement(statement))
    return statement.declarationList.declarations.flatMap((declaration) =>
      ts.isIdentifier(declaration.name) ? [declaration.name.text] : [],
    );
  return statement.name && ts.isIdentifier(statement.name) ? [statement.name.text] : [];
}

/**
 * The problems of what the declarations under `root/dist` declare (an empty list when there are
 * none): type errors under `skipLibCheck: false` (packages resolved from `root`), a leftover
 * `@internal`, and exported declarations no `exports` entry reaches. `ts` is the TypeScript module.
 */
export function checkDeclarationContents(root, ts) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const files = declarationsUnder(root, 'dist').map((file) => join(root, file));
  const program = ts.createProgram(files, {
    noEmit: true,
    strict: true,
    skipLibCheck: false,
    experimentalDecorators: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: existsSync(join(root, 'node_modules/@types/node')) ? ['node'] : [],
  });
  const checker = program.getTypeChecker();
  const shipped = new Set(files);
  const name = (file) => relative(root, file).split(sep).join('/');
  const problems = [];

  for (const file of files) {
    const source = program.getSourceFile(file);
    for (const diagnostic of [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ]) {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
      problems.push(`${name(file)}:${line + 1}: ${text}`);
    }
    if (source.text.includes('@internal'))
      problems.push(`${name(file)}: still says @internal (a comment the build did not strip)`);
  }

  // Every top-level declaration an entry point exports, and every one their declarations name.
  const reached = new Set();
  const queue = [];
  const reach = (symbol) => {
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    for (const declaration of symbol?.declarations ?? []) {
      if (!shipped.has(declaration.getSourceFile().fileName)) continue;
      let statement = declaration;
      while (!ts.isSourceFile(statement.parent) && !ts.isModuleBlock(statement.parent))
        statement = statement.parent;
      if (declaration !== statement && !ts.isVariableDeclaration(declaration)) continue;
      if (reached.has(statement)) continue;
      reached.add(statement);
      queue.push(statement);
    }
  };
  for (const entryFiles of typesEntries(manifest).values())
    for (const file of entryFiles) {
      const source = program.getSourceFile(join(root, file));
      const moduleSymbol = source && checker.getSymbolAtLocation(source);
      if (moduleSymbol) checker.getExportsOfModule(moduleSymbol).forEach(reach);
    }
  const visit = (node) => {
    if (ts.isIdentifier(node)) reach(checker.getSymbolAtLocation(node));
    ts.forEachChild(node, visit);
  };
  while (queue.length > 0) visit(queue.pop());
  for (const file of files)
    for (const statement of program.getSourceFile(file).statements)
      if (!reached.has(statement))
        for (const declared of declaredNamesOf(ts, statement))
          problems.push(
            `${name(file)}: declares ${declared}, which no entry point reaches (mark it @internal)`,
          );
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ts = createRequire(import.meta.url)('typescript');
  const files = declarationsUnder(ROOT, 'dist');
  if (files.length === 0) {
    console.error('check-declarations: no dist/**/*.d.ts; run the build first');
    process.exit(1);
  }
  const problems = [...checkDeclarations(ROOT, ts), ...checkDeclarationContents(ROOT, ts)];
  for (const problem of problems) console.error(`  ✗ ${problem}`);
  if (problems.length > 0) {
    console.error(`check-declarations: ${problems.length} problem(s) in dist/**/*.d.ts`);
    process.exit(1);
  }
  console.log(
    `check-declarations: ${files.length} declaration files import only what they may, type-check, and declare only what the entry points reach`,
  );
}
