#!/usr/bin/env node
// The Debian packages the test suites need beside Node, in one list that `.ci/run`, `npm test` and
// `npm run test:all` share (scripts/test-all.mjs runs this before any suite starts):
// - redis-server: the Redis suites start private redis-server processes on loopback ports;
// - softhsm2: a PKCS#11 token in software, for the HSM key suites (tokens in directories of their
//   own, never the system's);
// - chromium: the browser suite drives it headless (test/utils/chromium.ts); a serial suite that
//   only the full matrix runs (test/jest-e2e.base.js), so `npm test` (--loop) does without it.
//
// When one is missing it installs them with apt-get — as root, or through passwordless sudo — saying
// so; `NESTJS_MCP_NO_INSTALL=1` turns that off. When it may not install, it stops at once with the
// one command to run. Uses nothing but Node's built-ins: `.ci/run` runs it before `npm ci`.
//
// Usage: node scripts/system-packages.mjs [--check] [--loop]
//   --check  install nothing: exit 1 with the command to run when something is missing
//   --loop   only what the inner loop (`npm test`) needs
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the suites need: each Debian package, the program that shows it is there, and why. */
export const SYSTEM_PACKAGES = [
  {
    name: 'redis-server',
    program: (env) => env.REDIS_SERVER_BIN || 'redis-server',
    why: 'the Redis suites start private redis-server processes',
  },
  {
    name: 'softhsm2',
    program: () => 'softhsm2-util',
    why: 'the HSM key suites make SoftHSM2 tokens',
  },
  {
    name: 'chromium',
    program: (env) => env.CHROMIUM_PATH || '/usr/bin/chromium',
    why: 'the browser suite drives Chromium headless',
    matrixOnly: true,
  },
];

/** The environment variable that turns installing off. */
export const NO_INSTALL = 'NESTJS_MCP_NO_INSTALL';

/** Whether `program` (a path, or a name looked up on `env.PATH`) is an executable file. */
function installed(program, env) {
  const candidates =
    isAbsolute(program) || program.includes('/')
      ? [program]
      : (env.PATH ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, program));
  return candidates.some((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The packages of {@link SYSTEM_PACKAGES} (but the full matrix's, in the `loop`) that are not there. */
export function missingPackages(env = process.env, loop = false) {
  return SYSTEM_PACKAGES.filter(
    (pkg) => !(loop && pkg.matrixOnly) && !installed(pkg.program(env), env),
  );
}

/** The one command that installs `names`, for a user who is root or not. */
export function installCommand(names, root) {
  const sudo = root ? '' : 'sudo ';
  return `${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${names.join(' ')}`;
}

/**
 * How `names` can be installed here: `{ install: [prefix...] }` (apt-get as root, or through
 * passwordless sudo), or `{ stop: reason }` with why it may not (turned off, no apt-get, no
 * passwordless sudo).
 */
export function installPlan(env = process.env, uid = process.getuid?.() ?? -1) {
  if (env[NO_INSTALL] === '1') return { stop: `${NO_INSTALL}=1 is set` };
  if (!installed('apt-get', env)) return { stop: 'there is no apt-get on this machine' };
  if (uid === 0) return { install: [], as: 'as root' };
  const sudo = installed('sudo', env)
    ? spawnSync('sudo', ['-n', 'true'], { env, stdio: 'ignore' })
    : { status: 1 };
  if (sudo.status === 0) return { install: ['sudo', '-n'], as: 'with sudo' };
  return { stop: 'this user is not root and has no passwordless sudo' };
}

/** Runs `prefix... args...`, its output shown; throws when it fails. */
function run(prefix, args, env) {
  const [command, ...rest] = [...prefix, ...args];
  const result = spawnSync(command, rest, {
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: 'inherit',
  });
  if (result.error || result.status !== 0)
    throw new Error(
      `${[command, ...rest].join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`,
    );
}

/**
 * Makes sure every package of {@link SYSTEM_PACKAGES} is there, installing the missing ones when
 * it may (unless `check`). Returns nothing when they all are; otherwise the message that says what
 * is missing and the one command to run.
 */
export function ensureSystemPackages({
  env = process.env,
  check = false,
  loop = false,
  log = console.log,
} = {}) {
  const missing = missingPackages(env, loop);
  if (missing.length === 0) return undefined;
  const names = missing.map((pkg) => pkg.name);
  const uid = process.getuid?.() ?? -1;
  const plan = check ? { stop: '--check installs nothing' } : installPlan(env, uid);
  const needs = missing.map((pkg) => `${pkg.name} (${pkg.why})`).join('; ');
  const stop = (reason) =>
    `The test suites need Debian packages that are not installed: ${needs}.\n` +
    `Not installing them: ${reason}. Install them with:\n\n` +
    `  ${installCommand(names, uid === 0)}\n\n` +
    `(on another system, install ${names.join(', ')} with its package manager; ` +
    'CHROMIUM_PATH and REDIS_SERVER_BIN name binaries elsewhere)';
  if (plan.stop !== undefined) return stop(plan.stop);
  log(
    `Installing the Debian packages the test suites need, ${plan.as}: ${names.join(' ')} ` +
      `(${NO_INSTALL}=1 turns this off)`,
  );
  try {
    run(plan.install, ['apt-get', 'update', '-qq'], env);
    run(
      plan.install,
      ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...names],
      env,
    );
  } catch (error) {
    return stop(error.message);
  }
  // The package may start a system service; the suites start servers of their own.
  if (names.includes('redis-server')) {
    const [command, ...args] = [...plan.install, 'service', 'redis-server', 'stop'];
    spawnSync(command, args, { env, stdio: 'ignore' });
  }
  const still = missingPackages(env, loop);
  if (still.length > 0)
    return `apt-get installed ${names.join(' ')}, but ${still.map((pkg) => pkg.program(env)).join(', ')} is still missing`;
  return undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problem = ensureSystemPackages({
    check: process.argv.includes('--check'),
    loop: process.argv.includes('--loop'),
  });
  if (problem !== undefined) {
    console.error(problem);
    process.exitCode = 1;
  }
}
