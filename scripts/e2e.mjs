#!/usr/bin/env node
// The e2e suites (test/e2e/**/*.e2e-spec.ts) in the passes of test/jest-e2e.base.js: side by side
// (test/jest-e2e.parallel.js), then the serial suites one at a time, in band
// (test/jest-e2e.serial.js); on Nest 11 (the project's devDependencies) or on Nest 12 (the packages
// of test/nest12, installed by scripts/nest12.mjs; Jest on Node >= 24.9 with VM modules).
//
// Usage: node scripts/e2e.mjs [--nest 11|12] [--adapters express|fastify|all] [--loop]
//                             [--pass parallel|serial] [jest args]
//   --adapters  the platforms of every suite whose subject is not the HTTP adapter (sets
//               MCP_TEST_ADAPTERS, read by test/utils/bootstrap.ts; the others always run on both).
//               Default: all, or express with --loop.
//   --loop      the inner loop (`npm test`): of the serial suites only `*.serial.e2e-spec.ts`; the
//               load, fleet and failover suites (`*.load.e2e-spec.ts`) are left to `npm run test:all`.
//   --pass      one pass only (scripts/test-all.mjs runs the side-by-side pass beside other work
//               and the serial pass with the machine to itself).
// Other arguments go to Jest (a suite to pick, say); a pass they leave empty passes.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nest12Jest } from './nest12.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js');
const OPTIONS = new Set(['--nest', '--adapters', '--pass']);

/** `{ options, jestArgs }` from this script's arguments. */
function parse(args) {
  const options = { loop: false };
  const jestArgs = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--loop') options.loop = true;
    else if (OPTIONS.has(args[i]) && i + 1 < args.length) options[args[i].slice(2)] = args[++i];
    else jestArgs.push(args[i]);
  }
  return { options, jestArgs };
}

/** Runs one Jest pass; resolves with its exit code. */
function runJest(runtime, config, jestArgs, env) {
  const child = spawn(
    runtime.node,
    [...runtime.nodeArgs, JEST, '--config', join(ROOT, runtime.configDir, config), ...jestArgs],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...runtime.env, ...env } },
  );
  const stop = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);
  return new Promise((done) =>
    child.once('exit', (code, signal) => {
      for (const name of ['SIGINT', 'SIGTERM']) process.off(name, stop);
      done(signal ? 1 : code);
    }),
  );
}

async function main() {
  const { options, jestArgs } = parse(process.argv.slice(2));
  const nest = options.nest ?? '11';
  const adapters = options.adapters ?? (options.loop ? 'express' : 'all');
  if (nest !== '11' && nest !== '12') throw new Error(`--nest ${nest}: 11 or 12`);
  if (!['express', 'fastify', 'all'].includes(adapters))
    throw new Error(`--adapters ${adapters}: express, fastify or all`);
  if (options.pass !== undefined && !['parallel', 'serial'].includes(options.pass))
    throw new Error(`--pass ${options.pass}: parallel or serial`);

  const runtime =
    nest === '12'
      ? nest12Jest()
      : { node: process.execPath, nodeArgs: [], env: {}, configDir: 'test', title: 'Nest 11' };
  console.log(
    `e2e on ${runtime.title}, ${adapters === 'all' ? 'Express and Fastify' : adapters}` +
      (options.loop ? ', the inner loop' : ''),
  );
  const env = { MCP_TEST_ADAPTERS: adapters };
  const filtered = jestArgs.length > 0 ? ['--passWithNoTests'] : [];
  if (options.pass !== 'serial') {
    const code = await runJest(runtime, 'jest-e2e.parallel.js', [...filtered, ...jestArgs], env);
    if (code !== 0 || options.pass === 'parallel') return code;
  }
  const { MATRIX_ONLY_PATHS } = createRequire(import.meta.url)(join(ROOT, 'test/jest-e2e.base.js'));
  const loopOnly = options.loop
    ? ['/node_modules/', MATRIX_ONLY_PATHS].map((path) => `--testPathIgnorePatterns=${path}`)
    : [];
  return runJest(
    runtime,
    'jest-e2e.serial.js',
    ['--runInBand', ...loopOnly, ...filtered, ...jestArgs],
    env,
  );
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
