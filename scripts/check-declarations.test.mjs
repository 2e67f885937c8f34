// Tests of scripts/check-declarations.mjs on small made-up packages.
//
// Usage: node --test scripts/check-declarations.test.mjs   (part of npm run test:pack)
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { checkDeclarationContents, checkDeclarations } from './check-declarations.mjs';

const ts = createRequire(import.meta.url)('typescript');
const MANIFEST = {
  name: 'pkg',
  exports: {
    '.': { types: './dist/index.d.ts', default: './dist/index.js' },
    './redis': { types: './dist/redis/index.d.ts', default: './dist/redis/index.js' },
    './package.json': './package.json',
  },
  dependencies: { lib: '^1.0.0' },
  peerDependencies: { '@nestjs/common': '^11.0.0', ioredis: '^5.0.0' },
  peerDependenciesMeta: { ioredis: { optional: true } },
  devDependencies: { '@types/node': '^20.0.0', jest: '^30.0.0' },
};

const roots = [];
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A package folder with `files` (path → text) under it and MANIFEST as its package.json. */
function pkg(files) {
  const root = mkdtempSync(join(tmpdir(), 'check-declarations-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify(MANIFEST));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const CLEAN = {
  'dist/index.d.ts': [
    '/// <reference types="node" />',
    "import type { Injectable } from '@nestjs/common';",
    "import type { Server } from 'node:http';",
    "export * from './util';",
    "export type Lib = import('lib').Thing;",
  ].join('\n'),
  'dist/util/index.d.ts': "export { a } from './a.js';",
  'dist/util/a.d.ts': "import { EventEmitter } from 'events';\nexport declare const a: 1;",
  'dist/redis/index.d.ts': "export * from './client';",
  'dist/redis/client.d.ts': "import type { Redis } from 'ioredis';\nexport type C = Redis;",
};

describe('checkDeclarations', () => {
  it('passes dependencies, required peers, built-ins and resolvable relative imports', () => {
    assert.deepEqual(checkDeclarations(pkg(CLEAN), ts, { ioredis: ['./redis'] }), []);
  });

  it('refuses an optional peer that no subpath is allowed to reach', () => {
    assert.deepEqual(checkDeclarations(pkg(CLEAN), ts, { ioredis: [] }), [
      'dist/redis/client.d.ts: imports the optional peer "ioredis" (reached from "./redis")',
    ]);
  });

  it('refuses an optional peer reached from the root, even when its subpath allows it', () => {
    const root = pkg({
      ...CLEAN,
      'dist/index.d.ts': "export type { C } from './redis/client';",
    });
    assert.deepEqual(checkDeclarations(root, ts, { ioredis: ['./redis'] }), [
      'dist/redis/client.d.ts: imports the optional peer "ioredis" (reached from ".")',
    ]);
  });

  it('refuses an optional peer in a declaration that no subpath reaches', () => {
    const root = pkg({ ...CLEAN, 'dist/orphan.d.ts': 'export type R = import("ioredis").Redis;' });
    assert.deepEqual(checkDeclarations(root, ts, { ioredis: ['./redis'] }), [
      'dist/orphan.d.ts: imports the optional peer "ioredis" (reached from no export subpath allowed for it)',
    ]);
  });

  it('refuses dev dependencies, unlisted packages and dangling relative imports', () => {
    const root = pkg({
      ...CLEAN,
      'dist/util/a.d.ts': [
        '/// <reference types="jest" />',
        "import type { Mock } from 'jest-mock';",
        "export * from '@scope/unlisted/deep';",
        "export * from './gone';",
      ].join('\n'),
    });
    assert.deepEqual(checkDeclarations(root, ts, { ioredis: ['./redis'] }), [
      'dist/util/a.d.ts: imports "jest-mock", which is not a dependency or required peer dependency',
      'dist/util/a.d.ts: imports "@scope/unlisted/deep", which is not a dependency or required peer dependency',
      'dist/util/a.d.ts: imports "./gone", which is not a shipped declaration',
      'dist/util/a.d.ts: imports "jest", which is not a dependency or required peer dependency',
    ]);
  });

  it('refuses an exports entry whose types are not shipped', () => {
    const root = pkg({ 'dist/index.d.ts': 'export {};' });
    assert.deepEqual(checkDeclarations(root, ts), [
      'exports["./redis"]: dist/redis/index.d.ts is not shipped',
    ]);
  });
});

describe('checkDeclarationContents', () => {
  // Self-contained declarations (no package imports), as the build leaves them after stripInternal.
  const SHIPPED = {
    'dist/index.d.ts':
      "export { Store } from './store';\nexport type { Options } from './options';",
    'dist/store.d.ts': [
      "import type { Record } from './record';",
      '/** A store. */',
      'export declare class Store {',
      '  get(id: string): Record | undefined;',
      '}',
    ].join('\n'),
    'dist/record.d.ts': 'export interface Record {\n  readonly id: string;\n}',
    'dist/options.d.ts': 'export interface Options {\n  readonly size?: number;\n}',
    'dist/redis/index.d.ts': 'export {};',
  };

  it('passes declarations that type-check and that the entry points reach, by name or by type', () => {
    assert.deepEqual(checkDeclarationContents(pkg(SHIPPED), ts), []);
  });

  it('refuses a public signature that names a type the build stripped', () => {
    const root = pkg({ ...SHIPPED, 'dist/record.d.ts': 'export {};' });
    assert.deepEqual(checkDeclarationContents(root, ts), [
      "dist/store.d.ts:1: Module '\"./record\"' has no exported member 'Record'.",
    ]);
  });

  it('refuses an exported declaration no entry point reaches: it should have been internal', () => {
    const root = pkg({
      ...SHIPPED,
      'dist/options.d.ts': `${SHIPPED['dist/options.d.ts']}\nexport declare const DEFAULT_SIZE = 10;`,
      'dist/helper.d.ts': 'export declare function helper(): void;',
    });
    assert.deepEqual(checkDeclarationContents(root, ts), [
      'dist/helper.d.ts: declares helper, which no entry point reaches (mark it @internal)',
      'dist/options.d.ts: declares DEFAULT_SIZE, which no entry point reaches (mark it @internal)',
    ]);
  });

  it('refuses an @internal the build left in a comment', () => {
    const root = pkg({
      ...SHIPPED,
      'dist/options.d.ts':
        'export interface Options {\n  /** @internal For tests. */\n  readonly size?: number;\n}',
    });
    assert.deepEqual(checkDeclarationContents(root, ts), [
      'dist/options.d.ts: still says @internal (a comment the build did not strip)',
    ]);
  });
});
