// The MCP Inspector's command line, driven the way its README shows
// (`npx @modelcontextprotocol/inspector --cli <url> --transport http --method tools/call …`), in
// two generations:
// - v1, `@modelcontextprotocol/inspector-cli` 1.x (this project's devDependency; deprecated by its
//   authors): a v1 SDK client that declares no capabilities. Its launcher (build/cli.js) runs
//   build/index.js with `node` from the PATH and looks for its package.json from the working
//   directory, so it runs from its own build folder.
// - the current one, `@modelcontextprotocol/inspector` 2.12 (Node >= 22.19): the v2 client in its
//   default 2025-11-25 mode, declaring `roots` and the tasks and skills extensions at `initialize`.
//   Installed from the npm registry into node_modules/.cache on first use, run on the Node that
//   scripts/node-binary.mjs provides.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT } from '../consumer-app.mjs';
import { nodeAtLeast } from '../node-binary.mjs';
import { installIntoCache } from '../run-npm.mjs';

const INSPECTOR_V1_BUILD = dirname(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/cli.js'),
);
const INSPECTOR = '@modelcontextprotocol/inspector';
const INSPECTOR_VERSION = '2.12.0';
const INSPECTOR_DIR = join(ROOT, `node_modules/.cache/nestjs-mcp-inspector-${INSPECTOR_VERSION}`);
const INSPECTOR_LAUNCHER = `node_modules/${INSPECTOR}/clients/launcher/build/index.js`;
const TIMEOUT_MS = 30_000;

/** Runs `node args` in `cwd`; resolves with its exit code and output (never rejects). */
function run(nodeBinary, args, cwd) {
  return new Promise((done) => {
    const child = spawn(nodeBinary, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code: code ?? signal, stdout, stderr });
    });
  });
}

/** The options every call passes: the endpoint over Streamable HTTP with the user's token. */
function target(url, token) {
  return [url.href, '--transport', 'http', '--header', `Authorization: Bearer ${token}`];
}

/** `mcp-inspector --cli` of inspector-cli 1.x with `methodArgs` (`--method tools/list`, …). */
export function inspectorV1(url, token, methodArgs) {
  return run(
    process.execPath,
    [join(INSPECTOR_V1_BUILD, 'cli.js'), '--cli', ...target(url, token), ...methodArgs],
    INSPECTOR_V1_BUILD,
  );
}

/** Installs the current Inspector into the cache unless it is there; returns how to run it. */
export function ensureInspector() {
  const launcher = (prefix) => join(prefix, INSPECTOR_LAUNCHER);
  if (!existsSync(launcher(INSPECTOR_DIR))) {
    console.log(`Installing ${INSPECTOR}@${INSPECTOR_VERSION} into ${INSPECTOR_DIR}`);
    installIntoCache(
      INSPECTOR_DIR,
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--ignore-scripts',
        `${INSPECTOR}@${INSPECTOR_VERSION}`,
      ],
      (staging) => existsSync(launcher(staging)),
    );
  }
  return {
    node: nodeAtLeast('22.19', `the MCP Inspector ${INSPECTOR_VERSION}`),
    launcher: launcher(INSPECTOR_DIR),
  };
}

/** `mcp-inspector --cli` of the current Inspector (from {@link ensureInspector}). */
export function inspector(installed, url, token, methodArgs) {
  return run(
    installed.node,
    [installed.launcher, '--cli', ...target(url, token), ...methodArgs],
    INSPECTOR_DIR,
  );
}
