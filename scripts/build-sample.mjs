#!/usr/bin/env node
// Builds the sample app into dist-sample/ (tsc -p tsconfig.sample.json) unless the build is newer
// than everything it is built from. The e2e suites that run the sample as a child process and the
// conformance runner share it, so one `npm test` builds the sample at most once.
//
// Usage: node scripts/build-sample.mjs [--force]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLE_MAIN = join(ROOT, 'dist-sample/sample-app/src/main.js');
/** What the sample build is made of: when any of it is newer than the build, it is rebuilt. */
const BUILD_INPUTS = [
  'src',
  'sample-app/src',
  'package.json',
  'tsconfig.json',
  'tsconfig.sample.json',
];

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Whether dist-sample/ is newer than everything it is built from. */
export function sampleBuildIsFresh() {
  let built;
  try {
    built = statSync(SAMPLE_MAIN).mtimeMs;
  } catch {
    return false;
  }
  return BUILD_INPUTS.every((input) => newestMtime(join(ROOT, input)) <= built);
}

/** How long a build may hold the lock before another caller takes it as abandoned. */
const LOCK_STALE_MS = 5 * 60 * 1000;
/** Where the lock, the staging build and the replaced one live (ignored everywhere, one file system). */
const CACHE = join(ROOT, 'node_modules/.cache/nestjs-mcp-sample');
const LOCK = join(CACHE, 'build.lock');

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `fn` holding the build lock. The full matrix's lanes (the conformance runs, the e2e suites'
 * Jest workers) ask for the sample at the same moment; one builds, the others wait and find it fresh.
 */
function withBuildLock(fn) {
  mkdirSync(CACHE, { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const held = statSync(LOCK, { throwIfNoEntry: false });
      if (held === undefined) continue;
      if (Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      else sleep(200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds the sample unless it is fresh (or always, with `force`); throws with tsc's output on failure.
 * tsc writes into a staging folder that replaces dist-sample/ whole, so no caller ever starts a
 * half-written build (tsc writes main.js before the files it requires).
 */
export function buildSample({ force = false } = {}) {
  if (!force && sampleBuildIsFresh()) return false;
  return withBuildLock(() => {
    if (!force && sampleBuildIsFresh()) return false;
    const staging = join(CACHE, `sample-build.partial-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const build = spawnSync(
      process.execPath,
      [tsc, '-p', 'tsconfig.sample.json', '--outDir', staging],
      { cwd: ROOT, encoding: 'utf8' },
    );
    if (build.status !== 0) {
      rmSync(staging, { recursive: true, force: true });
      throw new Error(`sample app build failed (${build.status}):\n${build.stdout}${build.stderr}`);
    }
    const previous = join(CACHE, `sample-build.previous-${process.pid}`);
    if (existsSync(join(ROOT, 'dist-sample'))) renameSync(join(ROOT, 'dist-sample'), previous);
    renameSync(staging, join(ROOT, 'dist-sample'));
    rmSync(previous, { recursive: true, force: true });
    return true;
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    buildSample({ force: process.argv.includes('--force') });
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
