#!/usr/bin/env node
// Runs one bench (a TypeScript file under bench/) on Node 24 LTS, the reference runtime the numbers
// in bench/ and docs/ are measured on, whatever Node runs npm: the pinned build from the npm
// registry when this Node is another major (scripts/node-binary.mjs). BENCH_NODE=22 runs it on
// Node 22 instead (for the "what the move gains" comparisons); BENCH_NODE=current on this Node.
// The bench's servers are forked from it, so they run on the same Node. Says which Node ran it.
//
// Usage: node scripts/bench.mjs [--expose-gc] bench/<name>.ts
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeOfMajor } from './node-binary.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const file = args.find((arg) => arg.endsWith('.ts'));
if (!file) {
  console.error('usage: node scripts/bench.mjs [--expose-gc] bench/<name>.ts');
  process.exit(2);
}
const wanted = process.env.BENCH_NODE ?? '24';
const node =
  wanted === 'current'
    ? process.execPath
    : nodeOfMajor(Number(wanted), `the bench on Node ${wanted}`);
const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`${file} on Node ${version} (${node === process.execPath ? 'this Node' : node})`);
const flags = args.filter((arg) => arg.startsWith('--'));
const run = spawnSync(
  node,
  [...flags, '-r', 'ts-node/register/transpile-only', resolve(ROOT, file)],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TS_NODE_PROJECT: process.env.TS_NODE_PROJECT ?? 'tsconfig.json' },
  },
);
process.exitCode = run.status ?? 1;
