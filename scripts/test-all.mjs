#!/usr/bin/env node
// `npm test` (the inner loop, `--loop`) and `npm run test:all` (the full matrix CI runs): checks in
// stages run one after another; a failing stage stops the run. A stage is lanes run side by side, each lane its scripts in order (stopping at the first
// that fails). Side by side go only scripts that share nothing and do not measure time: the static
// checks and unit tests read the tree, the pack test works in temporary folders of its own (and
// rebuilds dist/, which nothing else here reads), the conformance runs start their own sample
// servers (and build the sample app the e2e suites reuse). The e2e suites, on Nest 11 then 12, have
// the machine to themselves: their serial pass measures the server under load.
//
// A stage of one lane shows its output as it comes; otherwise each script's output is shown when
// it ends. A summary of what ran, and how long it took, comes last, followed by the failing tests'
// messages again (a CI log is often read from its end, and cut in the middle).
//
// The inner loop: typecheck, lint, format, unit tests and one conformance run (Nest 11, Express)
// side by side, then the e2e suites on Nest 11 — each on Express, but for the suites whose subject
// is the adapter, which run on both (MCP_TEST_ADAPTERS=express; test/utils/bootstrap.ts). The full
// matrix adds Fastify everywhere, the serial load/fleet/failover suites, Nest 12, conformance on
// both majors and adapters, the pack test and the tarball in a user's Nest 11 and 12 apps.
//
// Usage: node scripts/test-all.mjs [--loop]
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LOOP = process.argv.includes('--loop');
const STAGES = LOOP
  ? [
      [['typecheck', 'lint', 'format:check', 'test:unit'], ['test:conformance:loop']],
      [['test:e2e:loop']],
    ]
  : [
      [
        ['typecheck', 'lint', 'format:check', 'test:unit'],
        ['test:pack', 'test:user-app'],
        ['test:conformance', 'test:conformance:nest12'],
      ],
      [['test:e2e', 'test:e2e:nest12']],
    ];

/** `npm run <script>` with the npm CLI running this script (else `npm` from PATH). */
function runScript(script, live) {
  const npmCli = process.env.npm_execpath;
  const windows = process.platform === 'win32';
  const [command, args] =
    npmCli && /npm-cli\.js$/.test(npmCli)
      ? [process.execPath, [npmCli, 'run', '-s', script]]
      : [windows ? 'npm.cmd' : 'npm', ['run', '-s', script]];
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
/** Jest's failure blocks (`● suite › test` and what follows), without its `● Console` blocks. */
function failureExcerpts(output) {
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

const results = [];
const started = performance.now();
/** Runs a lane's scripts in order, stopping at the first that fails. */
async function runLane(lane, live) {
  const finished = [];
  for (const script of lane) {
    const result = await runScript(script, live);
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
    console.log(`── side by side: ${stage.map((lane) => lane.join(' → ')).join(' | ')} ──`);
  const finished = (await Promise.all(stage.map((lane) => runLane(lane, live)))).flat();
  results.push(...finished);
  if (finished.some((result) => !result.ok)) break;
}

console.log(LOOP ? '\nnpm test (the inner loop)' : '\nnpm run test:all (the full matrix)');
for (const result of results)
  console.log(
    `  ${result.ok ? '✓' : '✗'} ${result.script.padEnd(18)} ${result.seconds.toFixed(1).padStart(6)} s`,
  );
const total = (performance.now() - started) / 1000;
const failed = results.some((result) => !result.ok);
const skipped = STAGES.flat(2).filter(
  (script) => !results.some((result) => result.script === script),
);
if (skipped.length > 0) console.log(`  not run after the failure: ${skipped.join(', ')}`);
console.log(`  ${failed ? 'FAILED' : 'passed'} in ${total.toFixed(1)} s`);
for (const result of results.filter((each) => !each.ok)) {
  const failures = failureExcerpts(result.output);
  if (failures.length === 0) continue;
  console.log(`\nfailures in ${result.script}:`);
  for (const failure of failures) console.log(failure);
}
process.exitCode = failed ? 1 : 0;
