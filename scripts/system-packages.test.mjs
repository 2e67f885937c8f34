// scripts/system-packages.mjs and its use by scripts/test-all.mjs, on a machine made to lack the
// packages without uninstalling anything: a PATH of a folder of our own (where a fake apt-get and
// sudo, when the case needs them, record what they were asked and "install" programs there) and
// CHROMIUM_PATH naming a file that does not exist yet.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT_USER = process.getuid?.() === 0;
const SUDO = ROOT_USER ? '' : 'sudo ';

const folders = [];
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/** A folder for one case's PATH, and a CHROMIUM_PATH inside it that does not exist yet. */
function machine({ apt = false } = {}) {
  const bin = mkdtempSync(join(tmpdir(), 'system-packages-'));
  folders.push(bin);
  const log = join(bin, 'apt-get.log');
  if (apt) {
    // apt-get: records its arguments; `install` puts an executable for each package on the PATH.
    writeFileSync(
      join(bin, 'apt-get'),
      `#!${process.execPath}
const { appendFileSync, writeFileSync } = require('node:fs');
const args = process.argv.slice(2);
appendFileSync(${JSON.stringify(log)}, args.join(' ') + '\\n');
if (args[0] === 'install') {
  const programs = { 'redis-server': ${JSON.stringify(join(bin, 'redis-server'))},
    softhsm2: ${JSON.stringify(join(bin, 'softhsm2-util'))}, chromium: process.env.CHROMIUM_PATH };
  for (const name of args) if (programs[name]) writeFileSync(programs[name], '', { mode: 0o755 });
}
`,
      { mode: 0o755 },
    );
    // sudo -n: lets this user do anything, the way passwordless sudo does.
    writeFileSync(
      join(bin, 'sudo'),
      `#!${process.execPath}
const args = process.argv.slice(2).filter((arg) => arg !== '-n');
const run = require('node:child_process').spawnSync(args[0], args.slice(1), { stdio: 'inherit' });
process.exit(run.status ?? 1);
`,
      { mode: 0o755 },
    );
  }
  return {
    env: { PATH: bin, HOME: bin, CHROMIUM_PATH: join(bin, 'chromium') },
    /** What apt-get was asked, one line a call; none when it never ran. */
    aptCalls: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []),
  };
}

function run(script, args, env) {
  return spawnSync(process.execPath, [join(ROOT, 'scripts', script), ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
}

describe('npm test without the Debian packages it needs', () => {
  it('stops before any suite with the one command to run when installing is turned off', () => {
    const { env, aptCalls } = machine({ apt: true });
    for (const [args, packages] of [
      [['--loop'], 'redis-server softhsm2'],
      [[], 'redis-server softhsm2 chromium'],
    ]) {
      const result = run('test-all.mjs', args, { ...env, NESTJS_MCP_NO_INSTALL: '1' });
      assert.equal(result.status, 1);
      assert.match(result.stderr, /Not installing them: NESTJS_MCP_NO_INSTALL=1 is set/);
      assert.ok(
        result.stderr.includes(
          `\n  ${SUDO}apt-get update && ${SUDO}apt-get install -y --no-install-recommends ${packages}\n`,
        ),
        result.stderr,
      );
      assert.match(result.stderr, /: nothing was run\.$/m);
      // No stage started: test-all.mjs announces each one, and its summary, on stdout.
      assert.equal(result.stdout, '');
    }
    assert.deepEqual(aptCalls(), []);
  });

  it('stops with the command where there is no apt-get to install with', () => {
    const { env } = machine();
    const result = run('system-packages.mjs', [], env);
    assert.equal(result.status, 1);
    assert.match(result.stderr, /Not installing them: there is no apt-get on this machine/);
    assert.match(
      result.stderr,
      /apt-get install -y --no-install-recommends redis-server softhsm2 chromium/,
    );
  });

  it('installs what is missing with apt-get when it may, saying so, and then passes', () => {
    const { env, aptCalls } = machine({ apt: true });
    const result = run('system-packages.mjs', [], env);
    assert.equal(result.status, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(
        `^Installing the Debian packages the test suites need, ${ROOT_USER ? 'as root' : 'with sudo'}: ` +
          'redis-server softhsm2 chromium \\(NESTJS_MCP_NO_INSTALL=1 turns this off\\)',
      ),
    );
    assert.deepEqual(aptCalls(), [
      'update -qq',
      'install -y -qq --no-install-recommends redis-server softhsm2 chromium',
    ]);
    // Now there, nothing more is installed.
    assert.equal(run('system-packages.mjs', [], env).status, 0);
    assert.equal(aptCalls().length, 2);
  });

  it('installs only what is missing, and with --check nothing', () => {
    const { env, aptCalls } = machine({ apt: true });
    writeFileSync(env.CHROMIUM_PATH, '', { mode: 0o755 });
    const checked = run('system-packages.mjs', ['--check'], env);
    assert.equal(checked.status, 1);
    assert.match(checked.stderr, /install -y --no-install-recommends redis-server softhsm2\n/);
    assert.deepEqual(aptCalls(), []);
    assert.equal(run('system-packages.mjs', [], env).status, 0);
    assert.deepEqual(aptCalls().slice(1), [
      'install -y -qq --no-install-recommends redis-server softhsm2',
    ]);
  });
});
