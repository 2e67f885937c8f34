#!/usr/bin/env node
// `npm test` (`--loop`, the inner loop) and `npm run test:all` (the full matrix, what CI runs):
// checks in stages run one after another; a failing stage stops the run. A stage is lanes run side
// by side, each lane its steps in order (stopping at the first that fails). Side by side go only
// steps that share nothing and do not measure time: the static checks and unit tests read the
// tree; the pack and user-app tests work in temporary folders of their own (and rebuild dist/, which
// nothing else here reads, so they share a lane); the conformance runs start their own sample
// servers (and build the sample app the serial e2e suites reuse); the side-by-side e2e pass starts
// its servers on port 0. The serial e2e suites have the machine to themselves: they measure the
// server under load (test/jest-e2e.base.js).
//
// The inner loop: typecheck, lint, format check and unit tests, one conformance run (Nest 11,
// Express) and the e2e suites on Nest 11 — on Express, but for the suites whose subject is the
// adapter, which run on both (test/utils/bootstrap.ts) — of the serial ones only those that measure
// the server (`*.serial.e2e-spec.ts`; `*.load.e2e-spec.ts` only in the full matrix). The full matrix: every e2e suite on both adapters on Nest 11, with
// the load, fleet and failover suites; on Nest 12 the same suites on both adapters but the load,
// fleet and failover ones (they test Redis and the fleet, not the Nest major); conformance on both majors and adapters; the pack test; the
// tarball in a user's Nest 11 and 12 apps.
//
// First, before any stage, the Debian packages the suites need (scripts/system-packages.mjs, the
// list `.ci/run` uses): installed when it may (as root or with passwordless sudo; not with
// NESTJS_MCP_NO_INSTALL=1); otherwise the run stops at once with the one command to run.
//
// A stage of one lane shows its output as it comes; otherwise each step's output is shown when it
// ends. A summary of what ran, and how long it took, comes last, followed by the failing tests'
// messages again (a CI log is often read from its end, and cut in the middle).
//
// Usage: node scripts/test-all.mjs [--loop]
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSystemPackages } from './system-packages.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LOOP = process.argv.includes('--loop');

/** A step: `npm run <script>`. */
const npm = (script) => ({ name: script, npm: script });
/** A step: `node scripts/e2e.mjs <args>`, named `name`. */
const e2e = (name, ...args) => ({ name, node: ['scripts/e2e.mjs', ...args] });

const STATIC = ['typecheck', 'lint', 'format:check', 'test:unit', 'test:scripts'].map(npm);
const STAGES = LOOP
  ? [
      [
        STATIC,
        [npm('test:conformance:loop')],
        [e2e('e2e side by side', '--loop', '--pass', 'parallel')],
      ],
      [[e2e('e2e serial', '--loop', '--pass', 'serial')]],
    ]
  : [
      [
        [...STATIC, npm('test:pack'), npm('test:user-app')],
        [npm('test:conformance'), npm('test:conformance:nest12')],
        [
          e2e('e2e side by side', '--pass', 'parallel'),
          e2e(
            'e2e Nest 12 side by side',
            '--nest',
            '12',
            '--loop',
            '--adapters',
            'all',
            '--pass',
            'parallel',
          ),
        ],
      ],
      [
        [
          e2e('e2e serial', '--pass', 'serial'),
          e2e(
            'e2e Nest 12 serial',
            '--nest',
            '12',
            '--loop',
            '--adapters',
            'all',
            '--pass',
            'serial',
          ),
        ],
      ],
    ];

/** Runs `step` (its output collected, and shown as it comes when `live`). */
function runStep(step, live) {
  const npmCli = process.env.npm_execpath;
  const windows = process.platform === 'win32';
  const [command, args] = step.node
    ? [process.execPath, step.node]
    : npmCli && /npm-cli\.js$/.test(npmCli)
      ? [process.execPath, [npmCli, 'run', '-s', step.npm]]
      : [windows ? 'npm.cmd' : 'npm', ['run', '-s', step.npm]];
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    shell: windows && command !== process.execPath,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (stream) => (chunk) => {
    output += chunk;
    if (live) stream.write(chunk);
  };
  child.stdout.on('data', collect(process.stdout));
  child.stderr.on('data', collect(process.stderr));
  const script = step.name;
  return new Promise((done) => {
    child.once('error', (error) => done({ script, ok: false, output: String(error), seconds: 0 }));
    child.once('exit', (code, signal) =>
      done({
        script,
        ok: code === 0,
        output: signal ? `${output}\n(killed by ${signal})` : output,
        seconds: (performance.now() - started) / 1000,
      }),
    );
  });
}

const MAX_FAILURES_SHOWN = 8;
const LINES_PER_FAILURE = 24;
/**
 * Jest's failure blocks (`● suite › test` and what follows), without its `● Console` blocks; for a
 * step that is not Jest (a type error, a lint finding, a conformance check, a node:test case), the
 * end of its output.
 */
function failureExcerpts(output) {
  const blocks = jestFailures(output);
  if (blocks.length > 0) return blocks;
  const tail = output.trimEnd().split('\n').slice(-LINES_PER_FAILURE);
  return tail.length > 0 && tail[0] !== '' ? [tail.join('\n')] : [];
}

function jestFailures(output) {
  const lines = output.split('\n');
  const excerpts = [];
  for (let i = 0; i < lines.length && excerpts.length < MAX_FAILURES_SHOWN; i++) {
    if (!/^\s*● (?!Console)/.test(lines[i])) continue;
    const block = [lines[i]];
    for (let j = i + 1; j < lines.length && block.length < LINES_PER_FAILURE; j++) {
      if (/^\s*● /.test(lines[j])) break;
      block.push(lines[j]);
    }
    excerpts.push(block.join('\n').trimEnd());
  }
  return excerpts;
}

function heading(result) {
  return `── ${result.script}: ${result.ok ? 'passed' : 'FAILED'} in ${result.seconds.toFixed(1)} s ──`;
}

const missing = ensureSystemPackages({ loop: LOOP });
if (missing !== undefined) {
  console.error(`${missing}\n\n${LOOP ? 'npm test' : 'npm run test:all'}: nothing was run.`);
  process.exit(1);
}

const results = [];
const started = performance.now();
/** Runs a lane's scripts in order, stopping at the first that fails. */
async function runLane(lane, live) {
  const finished = [];
  for (const step of lane) {
    const result = await runStep(step, live);
    if (!live) process.stdout.write(`${result.output.trimEnd()}\n`);
    console.log(heading(result));
    finished.push(result);
    if (!result.ok) break;
  }
  return finished;
}

for (const stage of STAGES) {
  const live = stage.length === 1;
  if (stage.length > 1)
    console.log(
      `── side by side: ${stage.map((lane) => lane.map((step) => step.name).join(' → ')).join(' | ')} ──`,
    );
  const finished = (await Promise.all(stage.map((lane) => runLane(lane, live)))).flat();
  results.push(...finished);
  if (finished.some((result) => !result.ok)) break;
}

console.log(LOOP ? '\nnpm test (the inner loop)' : '\nnpm run test:all (the full matrix)');
for (const result of results)
  console.log(
    `  ${result.ok ? '✓' : '✗'} ${result.script.padEnd(28)} ${result.seconds.toFixed(1).padStart(6)} s`,
  );
const total = (performance.now() - started) / 1000;
const failed = results.some((result) => !result.ok);
const skipped = STAGES.flat(2)
  .map((step) => step.name)
  .filter((name) => !results.some((result) => result.script === name));
if (skipped.length > 0) console.log(`  not run after the failure: ${skipped.join(', ')}`);
console.log(`  ${failed ? 'FAILED' : 'passed'} in ${total.toFixed(1)} s`);
for (const result of results.filter((each) => !each.ok)) {
  const failures = failureExcerpts(result.output);
  if (failures.length === 0) continue;
  console.log(`\nfailures in ${result.script}:`);
  for (const failure of failures) console.log(failure);
}
process.exitCode = failed ? 1 : 0;
