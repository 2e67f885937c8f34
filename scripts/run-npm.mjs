// Runs npm from the project's scripts the same way on every OS.
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';

/**
 * Runs npm synchronously with `npmArgs` (spawnSync options as given). Prefers the npm CLI that runs
 * the calling script (`npm run ...`), which needs no shell; otherwise `npm` from PATH (`npm.cmd`
 * through a shell on Windows). This project's lifecycle variables are dropped so that an npm working
 * on another folder does not mistake it for this package.
 */
export function runNpm(npmArgs, options = {}) {
  const env = Object.fromEntries(
    Object.entries(options.env ?? process.env).filter(
      ([name]) => !/^npm_(package_|lifecycle_|config_local_prefix$)/i.test(name),
    ),
  );
  const npmCli = process.env.npm_execpath;
  if (npmCli && /npm-cli\.js$/.test(npmCli))
    return spawnSync(process.execPath, [npmCli, ...npmArgs], { ...options, env });
  const windows = process.platform === 'win32';
  return spawnSync(windows ? 'npm.cmd' : 'npm', npmArgs, { ...options, env, shell: windows });
}

/**
 * Runs `npm <npmArgs> --prefix <staging>` in a staging folder next to `dir` and renames it to `dir`
 * once `isComplete(staging)` holds, so that an interrupted install is never reused. `prepare`
 * (optional) writes into the staging folder first, e.g. a package.json and lockfile for `npm ci`.
 * `isInstalled` (optional) says whether `dir` already holds this install: when another process (a
 * lane of the full matrix beside this one) finished it meanwhile, its install is kept, not replaced
 * under the tests running from it. Throws with npm's output when the install fails.
 */
export function installIntoCache(
  dir,
  npmArgs,
  isComplete,
  prepare = () => undefined,
  isInstalled = () => false,
) {
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  prepare(staging);
  const install = runNpm([...npmArgs, '--no-audit', '--no-fund', '--prefix', staging], {
    cwd: staging,
    // npm's own output goes to stderr, so a script's stdout carries only what it prints (a path).
    stdio: [0, 2, 2],
  });
  if (install.status !== 0 || !isComplete(staging)) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm ${npmArgs.join(' ')} failed in ${staging} (exit ${install.status})`);
  }
  if (isInstalled()) return void rmSync(staging, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
}
