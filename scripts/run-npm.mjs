// Runs npm from the project's scripts the same way on every OS.
import { spawnSync } from 'node:child_process';

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
