// What the tests that install the packed tarball into apps of their own share (the pack-and-install
// test, scripts/pack-install-test.mjs, and the user-app test, scripts/user-app-test.mjs): packing
// the package, installing into a fresh app folder, running its compiler, and starting the compiled
// app as a child process that prints its MCP endpoint.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNpm } from './run-npm.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STARTUP_TIMEOUT_MS = 20_000;

/** The two kinds of app a tarball is installed into: Nest 11 CommonJS, Nest 12 ESM. */
export const NEST_CONSUMERS = [
  { nest: 11, format: 'CommonJS', manifest: {}, lockfile: join(ROOT, 'package-lock.json') },
  {
    nest: 12,
    format: 'ESM',
    manifest: { type: 'module' },
    lockfile: join(ROOT, 'test/nest12/package-lock.json'),
  },
];

/** The version `lockfile` pins for `name`. */
export function lockedVersion(lockfile, name) {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8'));
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in ${lockfile}`);
  return version;
}

/** `name@version` as `lockfile` pins it. */
export function locked(lockfile, name) {
  return `${name}@${lockedVersion(lockfile, name)}`;
}

/** Throws with the command's output unless its spawnSync `result` says it succeeded. */
function check(result, command) {
  if (result.status !== 0) {
    throw new Error(
      `${command} failed (${result.status ?? result.error}):\n${result.stdout}${result.stderr}`,
    );
  }
  return result;
}

/** Runs npm in `cwd`; returns its output. */
export function npm(args, cwd) {
  const result = check(runNpm(args, { cwd, encoding: 'utf8' }), `npm ${args.join(' ')}`);
  return `${result.stdout}${result.stderr}`;
}

/** Runs `node args` in `cwd` and returns its stdout. */
export function node(args, cwd) {
  return check(
    spawnSync(process.execPath, args, { cwd, encoding: 'utf8' }),
    `node ${args.join(' ')}`,
  ).stdout;
}

/**
 * Packs this package into `workDir/pack` with `npm pack` (which builds it) and returns the
 * tarball's path. `NESTJS_MCP_TARBALL` names a tarball packed already, to skip the build when one
 * run of several tests packs once.
 */
export function packTarball(workDir) {
  if (process.env.NESTJS_MCP_TARBALL) return resolve(process.env.NESTJS_MCP_TARBALL);
  const packDir = join(workDir, 'pack');
  mkdirSync(packDir, { recursive: true });
  npm(['pack', '--pack-destination', packDir], ROOT);
  const tarballs = readdirSync(packDir).filter((file) => file.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`npm pack wrote ${tarballs.join(', ') || 'nothing'}`);
  return join(packDir, tarballs[0]);
}

/**
 * Starts `node <main> ...args` in `appDir` (with `nodeBinary`, default this process's Node, and
 * `env` added to this process's environment) and resolves once it prints
 * `listening on http://127.0.0.1:<port>/<path>`: with the process, its endpoint URL and a function
 * returning everything it printed so far.
 */
export function startApp(appDir, { main = 'dist/main.js', args = [], nodeBinary, env = {} } = {}) {
  const child = spawn(nodeBinary ?? process.execPath, [join(appDir, main), ...args], {
    cwd: appDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the app did not start within ${STARTUP_TIMEOUT_MS} ms:\n${log}`));
    }, STARTUP_TIMEOUT_MS);
    let started = false;
    const onData = (chunk) => {
      log += chunk;
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(log);
      if (listening && !started) {
        started = true;
        clearTimeout(timer);
        resolveStart({ child, url: new URL(listening[1]), log: () => log });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`the app exited with code ${code}:\n${log}`));
    });
  });
}

/** Stops `child`: SIGTERM, then SIGKILL after 5 s. */
export function stop(child) {
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
