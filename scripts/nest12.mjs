#!/usr/bin/env node
// The Nest 12 leg of the tests. The project itself is built and unit-tested on Nest 11 (its
// devDependencies); for this leg the Nest 12 packages pinned in test/nest12/package.json and its
// lockfile are installed with `npm ci --omit=peer` into node_modules/.cache/nestjs-mcp-nest12
// (reinstalled when the manifest changes). Peers are omitted so that rxjs, reflect-metadata,
// class-validator, class-transformer and passport come from the project's own node_modules: one
// copy of each, as in an app.
//
// The e2e suites run on Nest 12 through `node scripts/e2e.mjs --nest 12` (`nest12Jest()` below): Jest
// 30 with --experimental-vm-modules on Node >= 24.9, whose require(esm) loads ESM-only Nest from the
// CJS tests; @nestjs/* resolve to this install (test/nest12/jest-resolver.js).
//
// Usage: node scripts/nest12.mjs sample   copies dist-sample/ into the install, where plain Node
//                                         resolution finds Nest 12 first, and prints its main.js
//        node scripts/nest12.mjs install  installs it (when the manifest changed) and prints its folder
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeAtLeast } from './node-binary.mjs';
import { installIntoCache } from './run-npm.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MANIFEST_DIR = join(ROOT, 'test/nest12');
const MANIFEST_FILES = ['package.json', 'package-lock.json'];
/** Where the Nest 12 packages are installed (its node_modules/ holds them). */
export const NEST12_DIR = join(ROOT, 'node_modules/.cache/nestjs-mcp-nest12');
const MARKER = '.manifest-sha256';
/** Jest loads ESM from CJS (require(esm)) from this Node on (jestjs/jest#16074). */
const JEST_REQUIRE_ESM_NODE = '24.9';
/** The packages the leg checks it really got at major 12. */
const NEST12_PACKAGES = [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
  '@nestjs/testing',
];

function manifestDigest() {
  const hash = createHash('sha256');
  for (const file of MANIFEST_FILES) hash.update(readFileSync(join(MANIFEST_DIR, file)));
  return hash.digest('hex');
}

/** Installs the pinned Nest 12 packages unless the install matches the manifest; returns its folder. */
export function ensureNest12() {
  const digest = manifestDigest();
  const marker = join(NEST12_DIR, MARKER);
  const installed = () => existsSync(marker) && readFileSync(marker, 'utf8') === digest;
  if (installed()) return NEST12_DIR;
  console.log(`Installing the Nest 12 test packages (test/nest12) into ${NEST12_DIR}`);
  installIntoCache(
    NEST12_DIR,
    ['ci', '--omit=peer', '--ignore-scripts'],
    (staging) => NEST12_PACKAGES.every((name) => existsSync(join(staging, 'node_modules', name))),
    (staging) => {
      for (const file of MANIFEST_FILES) cpSync(join(MANIFEST_DIR, file), join(staging, file));
      writeFileSync(join(staging, MARKER), digest);
    },
    installed,
  );
  return NEST12_DIR;
}

/**
 * `{ name: version }` of the Nest packages that code in `dir` resolves with plain Node resolution
 * (run by `node`). Each package.json is found next to the resolved entry point: @nestjs/testing's
 * exports map does not offer `./package.json`.
 */
function nestVersionsFrom(dir, node = process.execPath) {
  const probe = spawnSync(
    node,
    [
      '-p',
      `const { readFileSync } = require('node:fs');
      JSON.stringify(Object.fromEntries(${JSON.stringify(NEST12_PACKAGES)}.map((name) => {
        const entry = require.resolve(name).split(require('node:path').sep).join('/');
        const folder = entry.slice(0, entry.lastIndexOf('/node_modules/' + name + '/') + 1);
        const manifest = folder + 'node_modules/' + name + '/package.json';
        return [name, JSON.parse(readFileSync(manifest, 'utf8')).version];
      })))`,
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  if (probe.status !== 0) throw new Error(`could not read the Nest versions:\n${probe.stderr}`);
  return JSON.parse(probe.stdout);
}

/** Throws unless every package in `versions` is at major 12. */
function assertNest12(versions, where) {
  const wrong = Object.entries(versions).filter(([, version]) => !version.startsWith('12.'));
  if (wrong.length > 0) {
    throw new Error(
      `${where} resolves ${wrong.map(([name, version]) => `${name}@${version}`).join(', ')}, not Nest 12`,
    );
  }
}

/** The newest modification time under `path` and how many files it holds: what identifies a build. */
function buildStamp(path) {
  let newest = 0;
  let files = 0;
  const visit = (at) => {
    const stat = statSync(at);
    newest = Math.max(newest, stat.mtimeMs);
    if (!stat.isDirectory()) return void files++;
    for (const entry of readdirSync(at)) visit(join(at, entry));
  };
  visit(path);
  return `${newest}:${files}`;
}

/**
 * Copies the built sample app (dist-sample/) into the Nest 12 install, so that the copy resolves
 * @nestjs/* from there (and everything else from the project's node_modules) with plain Node
 * resolution; checks it does and returns the copy's main.js.
 *
 * The full matrix runs the Nest 12 conformance leg beside the Nest 12 e2e suites, and each asks for
 * the copy while the other's sample servers run from it. So a copy is never replaced in place: it
 * lives in a folder named after the build it copies, made in a staging folder and renamed into
 * place whole; a caller that finds it already there uses it. Copies of older builds are removed
 * once nothing could still be starting from them.
 */
export function nest12SampleMain() {
  const source = join(ROOT, 'dist-sample');
  if (!existsSync(join(source, 'sample-app/src/main.js')))
    throw new Error('dist-sample/ is not built (npm run build:sample)');
  const install = ensureNest12();
  const name = `dist-sample-${createHash('sha256').update(buildStamp(source)).digest('hex').slice(0, 16)}`;
  const target = join(install, name);
  const main = join(target, 'sample-app/src/main.js');
  if (!existsSync(main)) {
    const staging = `${target}.partial-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    cpSync(source, staging, { recursive: true });
    try {
      renameSync(staging, target);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(main)) throw error;
    }
  }
  removeStaleSampleCopies(install, name);
  assertNest12(nestVersionsFrom(dirname(main)), 'the Nest 12 copy of the sample app');
  return main;
}

/** A copy of an older build is removed an hour after it was made (a test run may still use it). */
const STALE_COPY_MS = 60 * 60 * 1000;

function removeStaleSampleCopies(install, current) {
  for (const entry of readdirSync(install)) {
    if (!entry.startsWith('dist-sample') || entry === current) continue;
    const path = join(install, entry);
    if (Date.now() - statSync(path).mtimeMs > STALE_COPY_MS)
      rmSync(path, { recursive: true, force: true });
  }
}

/**
 * How to start Jest on Nest 12 (scripts/e2e.mjs runs the passes): the Node to run it on (at least
 * 24.9, whose require(esm) loads ESM-only Nest from the CJS tests; it needs
 * --experimental-vm-modules), its environment, and a line saying which Nest and Node it is.
 */
export function nest12Jest() {
  const dir = ensureNest12();
  const node = nodeAtLeast(JEST_REQUIRE_ESM_NODE, 'Jest on Nest 12 (require(esm))');
  const versions = nestVersionsFrom(dir, node);
  assertNest12(versions, NEST12_DIR);
  const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return {
    node,
    nodeArgs: ['--experimental-vm-modules'],
    // The sample app's child processes run on this (the project's) Node, as in the conformance
    // leg: Nest 12 loaded through require(esm) on the engine floor.
    env: { NESTJS_MCP_NEST12_DIR: dir, NESTJS_MCP_SAMPLE_NODE: process.execPath },
    configDir: 'test/nest12',
    title: `Nest ${versions['@nestjs/core']} (node ${nodeVersion})`,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [command, ...rest] = process.argv.slice(2);
  try {
    if (command === 'sample' && rest.length === 0) console.log(nest12SampleMain());
    else if (command === 'install' && rest.length === 0) console.log(ensureNest12());
    else
      throw new Error(
        'usage: node scripts/nest12.mjs sample|install (the e2e leg: node scripts/e2e.mjs --nest 12)',
      );
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
