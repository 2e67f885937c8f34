#!/usr/bin/env node
// Runs the official MCP conformance suite (server leg) against the sample app, once on Express and
// once on Fastify: the scored requirements of both protocol eras (2026-07-28, stateless, and
// 2025-11-25, with sessions) against the same running sample. Fails on any scored FAILURE or
// WARNING of either era, on any FAILURE in the
// not-scored scenarios this project implements, and on any FAILURE or WARNING in the tasks
// extension scenarios.
//
// Usage: node scripts/conformance.mjs [--skip-build] [--nest 11|12] [--adapter express|fastify]...
// The sample app is built first unless dist-sample/ is newer than its sources (scripts/build-sample.mjs).
// Results: conformance-results/[nest12/]<adapter>/{scored,scored-2025-11-25,<scenario>}/server-<scenario>-<time>/checks.json
//
// The sample app runs on the Node running this script, on Nest 11 (the project's own
// devDependencies) or, with --nest 12, on the Nest 12 packages of test/nest12 (scripts/nest12.mjs
// installs them and copies the sample build where plain Node resolution finds them).
// The runner needs Node >= 22. Under an older Node, a pinned Node build for this platform is
// installed from the npm registry into node_modules/.cache/ on first use (scripts/node-binary.mjs).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSample } from './build-sample.mjs';
import { nest12SampleMain } from './nest12.mjs';
import { nodeAtLeast } from './node-binary.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPEC_VERSION = '2026-07-28';
// The 2025-era requirements, served by the same endpoint with sessions (docs/clients.md).
const SESSION_SPEC_VERSION = '2025-11-25';
const CONFORMANCE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance');
const RUNNER = join(CONFORMANCE, 'dist/index.js');
// The runner needs Node >= 22; the server under test runs on whatever Node runs this script.
const RUNNER_NODE = '22';
const SAMPLE_MAIN = join(ROOT, 'dist-sample/sample-app/src/main.js');
const RESULTS = join(ROOT, 'conformance-results');
const EXTRA_SCENARIOS = [
  'json-schema-2020-12',
  'http-header-validation',
  'http-custom-header-server-validation',
];
// The tasks extension (SEP-2663): extension scenarios, off the spec timeline, so run without
// --spec-version. `tasks-status-notifications` is SKIPPED by the harness itself (pending rewrite).
const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];
// The skills extension (SEP-2640): extension-scoped, one at a time, without --spec-version. A
// server that declared nothing would get every check SKIPPED and still "pass": each scenario must
// have checks that succeeded, and none skipped.
const SKILLS_SCENARIOS = [
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
  'sep-2640-skills-directory',
];
const STARTUP_TIMEOUT_MS = 20_000;

const args = process.argv.slice(2);
const adapters = args.flatMap((arg, i) => (args[i - 1] === '--adapter' ? [arg] : []));
const nest = args.find((arg, i) => args[i - 1] === '--nest') ?? '11';

/** The scored server scenarios of a requirements file (its top-level `server:` list). */
function scoredScenarios(specVersion) {
  const lines = readFileSync(join(CONFORMANCE, `requirements/${specVersion}.yaml`), 'utf8').split(
    '\n',
  );
  const start = lines.indexOf('server:');
  const scenarios = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^ {2}- ([\w./-]+)\s*$/.exec(line);
    if (item) scenarios.push(item[1]);
    else if (/^\S/.test(line)) break;
  }
  return scenarios;
}

/** Every check of every scenario run into `dir`, keyed by scenario name. */
function readChecks(dir) {
  const byScenario = new Map();
  if (!existsSync(dir)) return byScenario;
  for (const entry of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry);
    const file = join(dir, entry, 'checks.json');
    if (match && existsSync(file)) byScenario.set(match[1], JSON.parse(readFileSync(file, 'utf8')));
  }
  return byScenario;
}

/** Runs the conformance runner; async, so the sample app's output keeps draining meanwhile. */
function runRunner(node, runnerArgs) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(node, [RUNNER, 'server', ...runnerArgs], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolveRun({ status: code ?? 1, output }));
  });
}

/** Starts the sample app (`main`) on a free port and resolves once it answers `server/discover`. */
async function startSample(main, adapter) {
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', SAMPLE_ADAPTER: adapter, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let log = '';
  const started = new Promise((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sample app did not start within ${STARTUP_TIMEOUT_MS} ms`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk) => {
      log += chunk;
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(log);
      if (listening) {
        clearTimeout(timer);
        resolveUrl(listening[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sample app exited with code ${code}:\n${log}`));
    });
  });
  try {
    const url = await started;
    await waitUntilAnswering(url);
    return { child, url, log: () => log };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

async function waitUntilAnswering(url) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': SPEC_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  for (;;) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': SPEC_VERSION,
          'Mcp-Method': 'server/discover',
        },
        body,
      });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not accepting connections yet.
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer server/discover`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Runs the scored requirements of `specVersion` against the running sample at `url` into `dir`;
 * adds every FAILURE and WARNING to `problems` and returns a one-line summary.
 */
async function runScored(node, url, specVersion, scenarios, dir, problems) {
  const run = await runRunner(node, ['--url', url, '--requirements', specVersion, '-o', dir]);
  const checks = readChecks(dir);
  let passed = 0;
  let warnings = 0;
  let failures = 0;
  for (const scenario of scenarios) {
    const scenarioChecks = checks.get(scenario);
    if (!scenarioChecks) {
      problems.push(`${specVersion} ${scenario}: no results`);
      failures++;
      continue;
    }
    const bad = scenarioChecks.filter(
      (check) => check.status === 'FAILURE' || check.status === 'WARNING',
    );
    if (bad.length === 0) passed++;
    for (const check of bad) {
      if (check.status === 'FAILURE') failures++;
      else warnings++;
      problems.push(
        `${specVersion} ${scenario} / ${check.id}: ${check.status} ${check.errorMessage ?? ''}`.trim(),
      );
    }
  }
  if (run.status !== 0 && failures === 0)
    problems.push(`${specVersion}: runner exited with ${run.status}:\n${run.output}`);
  return (
    `${specVersion} passed ${passed}/${scenarios.length}, ${warnings} warnings, ${failures} failures` +
    ` (runner exit ${run.status})`
  );
}

/**
 * Runs the scored requirements of both eras and the extra scenarios against the sample app `main` on one
 * adapter, with the runner on `node`; returns its problems.
 */
async function runAdapter(main, adapter, scored, node) {
  const outDir = join(RESULTS, nest === '11' ? adapter : `nest${nest}/${adapter}`);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const sample = await startSample(main, adapter);
  const problems = [];
  try {
    const started = Date.now();
    const eras = [];
    for (const [specVersion, scenarios, dirName] of [
      [SPEC_VERSION, scored, 'scored'],
      [
        SESSION_SPEC_VERSION,
        scoredScenarios(SESSION_SPEC_VERSION),
        `scored-${SESSION_SPEC_VERSION}`,
      ],
    ]) {
      eras.push(
        await runScored(node, sample.url, specVersion, scenarios, join(outDir, dirName), problems),
      );
    }

    const extra = [];
    for (const scenario of EXTRA_SCENARIOS) {
      const dir = join(outDir, scenario);
      await runRunner(node, [
        '--url',
        sample.url,
        '--scenario',
        scenario,
        '--spec-version',
        SPEC_VERSION,
        '-o',
        dir,
      ]);
      const scenarioChecks = readChecks(dir).get(scenario);
      if (!scenarioChecks) {
        problems.push(`${scenario} (not scored): no results`);
        extra.push(`${scenario} no results`);
        continue;
      }
      const failed = scenarioChecks.filter((check) => check.status === 'FAILURE');
      const ok = scenarioChecks.filter((check) => check.status === 'SUCCESS').length;
      extra.push(`${scenario} ${ok}/${ok + failed.length}`);
      for (const check of failed) {
        problems.push(
          `${scenario} (not scored) / ${check.id}: FAILURE ${check.errorMessage ?? ''}`.trim(),
        );
      }
    }
    for (const [extension, scenarios] of [
      ['tasks', TASKS_SCENARIOS],
      ['skills', SKILLS_SCENARIOS],
    ]) {
      let passed = 0;
      for (const scenario of scenarios) {
        const dir = join(outDir, scenario);
        await runRunner(node, ['--url', sample.url, '--scenario', scenario, '-o', dir]);
        const scenarioChecks = readChecks(dir).get(scenario);
        if (!scenarioChecks) {
          problems.push(`${scenario} (${extension}): no results`);
          continue;
        }
        // Skills checks are all expected to run: a SKIPPED one means something went unproven.
        const bad = scenarioChecks.filter(
          (check) =>
            check.status === 'FAILURE' ||
            check.status === 'WARNING' ||
            (extension === 'skills' && check.status === 'SKIPPED'),
        );
        const succeeded = scenarioChecks.filter((check) => check.status === 'SUCCESS').length;
        if (extension === 'skills' && succeeded === 0)
          problems.push(`${scenario} (${extension}): no check succeeded (all skipped)`);
        if (bad.length === 0 && (extension !== 'skills' || succeeded > 0)) passed++;
        for (const check of bad) {
          problems.push(
            `${scenario} (${extension}) / ${check.id}: ${check.status} ${check.errorMessage ?? ''}`.trim(),
          );
        }
      }
      extra.push(`${extension} ${passed}/${scenarios.length} scenarios`);
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `Nest ${nest} ${adapter}: scored ${eras.join('; ')}; not scored: ${extra.join(', ')}; ${seconds}s`,
    );
  } finally {
    await stop(sample.child);
    writeFileSync(join(outDir, 'server.log'), sample.log());
  }
  return problems;
}

/** Child processes still alive; killed if this script exits or is interrupted. */
const running = new Set();
function track(child) {
  running.add(child);
  child.once('exit', () => running.delete(child));
}
const killAll = () => running.forEach((child) => child.kill('SIGKILL'));
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

async function main() {
  // Built unless it is newer than its sources (the e2e suites may just have built it).
  if (!args.includes('--skip-build') && buildSample()) console.log('Built the sample app');
  if (nest !== '11' && nest !== '12') throw new Error(`--nest ${nest}: 11 or 12`);
  const main = nest === '12' ? nest12SampleMain() : SAMPLE_MAIN;
  const scored = scoredScenarios(SPEC_VERSION);
  const node = nodeAtLeast(RUNNER_NODE, 'the conformance runner');
  let failed = false;
  for (const adapter of adapters.length > 0 ? adapters : ['express', 'fastify']) {
    const problems = await runAdapter(main, adapter, scored, node);
    for (const problem of problems) console.log(`  ✗ ${problem}`);
    failed ||= problems.length > 0;
  }
  console.log(`Conformance results in ${RESULTS}`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  killAll();
  process.exit(1);
});
