#!/usr/bin/env node
// Builds the sample app into dist-sample/ (tsc -p tsconfig.sample.json) unless the build is newer
// than everything it is built from. The e2e suites that run the sample as a child process and the
// conformance runner share it, so one `npm test` builds the sample at most once.
//
// Usage: node scripts/build-sample.mjs [--force]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

/** Builds the sample unless it is fresh (or always, with `force`); throws with tsc's output on failure. */
export function buildSample({ force = false } = {}) {
  if (!force && sampleBuildIsFresh()) return false;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.sample.json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (build.status !== 0)
    throw new Error(`sample app build failed (${build.status}):\n${build.stdout}${build.stderr}`);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    buildSample({ force: process.argv.includes('--force') });
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
