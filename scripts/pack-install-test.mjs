// Pack-and-install test: packs this package with `npm pack` and installs the tarball with a plain
// `npm install` (no --legacy-peer-deps) into two fresh apps in the OS temp folder, each without
// the optional peers ioredis and bullmq:
// - a Nest 11 CommonJS app, its peers at the versions in package-lock.json;
// - a Nest 12 ESM app ("type": "module", as `nest new` makes one), Nest at the versions in
//   test/nest12/package-lock.json.
// Both compile the same source (scripts/pack-consumer/src) with TypeScript 6 under nodenext
// resolution and skipLibCheck off, so every shipped .d.ts is type-checked against what the app
// installed; the ESM app also type-checks under `bundler` resolution. Each app then serves a
// class-validator DTO tool and a sealed form-confirmation tool, called with the official client
// on Express and on Fastify.
//
// Usage: node --test scripts/pack-install-test.mjs   (npm run test:pack)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runNpm } from './run-npm.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONSUMER = join(ROOT, 'scripts/pack-consumer');
const PROTOCOL_VERSION = '2026-07-28';
const NEST_PACKAGES = [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
];
const OTHER_PACKAGES = [
  'reflect-metadata',
  'rxjs',
  'class-validator',
  'class-transformer',
  'typescript',
  '@types/node',
  // skipLibCheck off type-checks @nestjs/platform-express's .d.ts, which need Express's types
  // (`nest new` installs them too).
  '@types/express',
  '@modelcontextprotocol/client',
];
const STARTUP_TIMEOUT_MS = 20_000;

// As in the app `nest new` makes (@nestjs/schematics 12, ts and ts-esm templates), but strict and
// with skipLibCheck off.
const COMPILER_OPTIONS = {
  module: 'nodenext',
  moduleResolution: 'nodenext',
  resolvePackageJsonExports: true,
  esModuleInterop: true,
  isolatedModules: true,
  emitDecoratorMetadata: true,
  experimentalDecorators: true,
  target: 'ES2023',
  strict: true,
  skipLibCheck: false,
  types: ['node'],
  rootDir: 'src',
  outDir: 'dist',
};

const CONSUMERS = [
  {
    nest: 11,
    format: 'CommonJS',
    manifest: {},
    lockfile: join(ROOT, 'package-lock.json'),
  },
  {
    nest: 12,
    format: 'ESM',
    manifest: { type: 'module' },
    lockfile: join(ROOT, 'test/nest12/package-lock.json'),
  },
];

/** The version `lockfile` pins for `name`. */
function lockedVersion(lockfile, name) {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8'));
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in ${lockfile}`);
  return version;
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
function npm(args, cwd) {
  const result = check(runNpm(args, { cwd, encoding: 'utf8' }), `npm ${args.join(' ')}`);
  return `${result.stdout}${result.stderr}`;
}

/** Runs `node args` in `cwd` and returns its stdout. */
function node(args, cwd) {
  return check(
    spawnSync(process.execPath, args, { cwd, encoding: 'utf8' }),
    `node ${args.join(' ')}`,
  ).stdout;
}

/** Starts the compiled app on `adapter`; resolves with the process and its MCP endpoint URL. */
function startApp(appDir, adapter) {
  const child = spawn(process.execPath, [join(appDir, 'dist/main.js'), adapter], {
    cwd: appDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the app did not start within ${STARTUP_TIMEOUT_MS} ms:\n${log}`));
    }, STARTUP_TIMEOUT_MS);
    const onData = (chunk) => {
      log += chunk;
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(log);
      if (listening) {
        clearTimeout(timer);
        resolveStart({ child, url: new URL(listening[1]), log: () => log });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with code ${code}:\n${log}`));
    });
  });
}

/** Stops `child`: SIGTERM, then SIGKILL after 5 s. */
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

/** Every file path under `dir`, relative to it, with `/` separators. */
function listFiles(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/**
 * A fetch for the client's transport that records each `tools/call` it sends: the JSON-RPC
 * params and the result (or error) of the answer, JSON or the last SSE `data:` event.
 */
function recordingFetch(calls) {
  return async (input, init) => {
    const response = await fetch(input, init);
    const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (sent?.method !== 'tools/call') return response;
    const text = await response.clone().text();
    const events = text.split('\n').filter((line) => line.startsWith('data:'));
    const answer = JSON.parse(events.length > 0 ? events.at(-1).slice(5) : text);
    calls.push({ params: sent.params, result: answer.result, error: answer.error });
    return response;
  };
}

const workDir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-pack-'));
let tarball;

before(
  () => {
    const packDir = join(workDir, 'pack');
    mkdirSync(packDir);
    npm(['pack', '--pack-destination', packDir], ROOT);
    const tarballs = readdirSync(packDir).filter((file) => file.endsWith('.tgz'));
    assert.equal(tarballs.length, 1, `npm pack wrote ${tarballs.join(', ') || 'nothing'}`);
    tarball = join(packDir, tarballs[0]);
  },
  { timeout: 120_000 },
);

after(() => rmSync(workDir, { recursive: true, force: true }));

for (const consumer of CONSUMERS) {
  describe(`the packed tarball in a fresh Nest ${consumer.nest} ${consumer.format} app`, () => {
    const appDir = join(workDir, `nest${consumer.nest}`);
    const running = new Set();
    let installLog = '';

    before(
      () => {
        cpSync(join(CONSUMER, 'src'), join(appDir, 'src'), { recursive: true });
        cpSync(join(CONSUMER, 'exports-check.mjs'), join(appDir, 'exports-check.mjs'));
        writeFileSync(
          join(appDir, 'package.json'),
          JSON.stringify(
            {
              name: `pack-test-nest${consumer.nest}`,
              version: '1.0.0',
              private: true,
              ...consumer.manifest,
            },
            null,
            2,
          ),
        );
        writeFileSync(
          join(appDir, 'tsconfig.json'),
          JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: ['src'] }, null, 2),
        );
        installLog = npm(
          [
            'install',
            '--prefer-offline',
            '--no-audit',
            '--no-fund',
            tarball,
            ...NEST_PACKAGES.map((name) => `${name}@${lockedVersion(consumer.lockfile, name)}`),
            ...OTHER_PACKAGES.map(
              (name) => `${name}@${lockedVersion(join(ROOT, 'package-lock.json'), name)}`,
            ),
          ],
          appDir,
        );
        const tsc = join(appDir, 'node_modules/typescript/bin/tsc');
        node([tsc, '-p', 'tsconfig.json'], appDir);
      },
      { timeout: 240_000 },
    );

    after(() => Promise.all([...running].map(stop)));

    it('installs without the optional peers and without peer conflicts', () => {
      for (const name of ['ioredis', 'bullmq'])
        assert.ok(!existsSync(join(appDir, 'node_modules', name)), `${name} was installed`);
      assert.doesNotMatch(installLog, /ERESOLVE|Conflicting peer/i);
      const require = createRequire(join(appDir, 'package.json'));
      const found = require('@nestjs/core/package.json').version;
      assert.equal(found.split('.')[0], String(consumer.nest), `@nestjs/core ${found}`);
    });

    it('ships the build with its types, the license, the README and the docs, and no source maps', () => {
      const installed = join(appDir, 'node_modules/nestjs-mcp');
      const files = listFiles(installed);
      for (const file of [
        'LICENSE',
        'README.md',
        'docs/errors.md',
        'docs/nest-12.md',
        'dist/index.js',
        'dist/index.d.ts',
      ])
        assert.ok(files.includes(file), `${file} is missing from the tarball`);
      assert.deepEqual(
        files.filter((file) => file.endsWith('.map') || file.startsWith('src/')),
        [],
      );
      const manifest = createRequire(join(appDir, 'package.json'))('nestjs-mcp/package.json');
      assert.equal(manifest.name, 'nestjs-mcp');
      // TypeScript falls back to the .d.ts next to the JS silently, so check every target is shipped.
      for (const [subpath, targets] of Object.entries(manifest.exports))
        for (const [condition, target] of Object.entries(
          typeof targets === 'string' ? { default: targets } : targets,
        ))
          assert.ok(
            existsSync(join(installed, target)),
            `exports["${subpath}"].${condition}: ${target} is missing`,
          );
    });

    it('offers every export as an ESM named import', () => {
      const report = JSON.parse(node(['exports-check.mjs'], appDir));
      for (const [entry, { exports, missing }] of Object.entries(report)) {
        assert.ok(exports > 0, `${entry} exports nothing`);
        assert.deepEqual(missing, [], `${entry}: names an ESM import does not see`);
      }
    });

    if (consumer.format === 'ESM') {
      it('type-checks under bundler resolution too', () => {
        const options = {
          ...COMPILER_OPTIONS,
          module: 'preserve',
          moduleResolution: 'bundler',
          noEmit: true,
        };
        writeFileSync(
          join(appDir, 'tsconfig.bundler.json'),
          JSON.stringify({ compilerOptions: options, include: ['src'] }, null, 2),
        );
        node(
          [join(appDir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.bundler.json'],
          appDir,
        );
      });
    }

    for (const adapter of ['express', 'fastify']) {
      describe(`on ${adapter}`, () => {
        let url;
        let client;
        let asked;
        const calls = [];

        before(
          async () => {
            const app = await startApp(appDir, adapter);
            running.add(app.child);
            url = app.url;
            const { Client, StreamableHTTPClientTransport } = createRequire(
              join(appDir, 'package.json'),
            )('@modelcontextprotocol/client');
            client = new Client(
              { name: 'nestjs-mcp-pack-test', version: '1.0.0' },
              {
                versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
                capabilities: { elicitation: { form: {} } },
              },
            );
            asked = [];
            client.setRequestHandler('elicitation/create', (request) => {
              asked.push(request.params.message);
              return { action: 'accept', content: { confirm: true } };
            });
            await client.connect(
              new StreamableHTTPClientTransport(url, { fetch: recordingFetch(calls) }),
            );
          },
          { timeout: 60_000 },
        );

        after(() => client?.close());

        it('serves a class-validator DTO tool', async () => {
          const { tools } = await client.listTools();
          assert.deepEqual(
            tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})]),
            [
              ['greet', ['name']],
              ['deleteFile', ['path']],
            ],
          );
          const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
          assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
          await assert.rejects(
            client.callTool({ name: 'greet', arguments: { name: 'x'.repeat(21) } }),
            (error) => error.code === -32602,
          );
        });

        it('asks with a form, seals its state and finishes on the retry', async () => {
          calls.length = 0;
          const result = await client.callTool({
            name: 'deleteFile',
            arguments: { path: 'a.txt' },
          });
          assert.deepEqual(result.content, [{ type: 'text', text: 'Deleted a.txt' }]);
          assert.deepEqual(asked, ['Delete a.txt?']);
          assert.equal(calls.length, 2, JSON.stringify(calls));
          const [first, retry] = calls;
          assert.equal(first.result.resultType, 'input_required');
          assert.equal(first.result.inputRequests.confirm.method, 'elicitation/create');
          assert.equal(first.result.inputRequests.confirm.params.mode, 'form');
          const state = first.result.requestState;
          assert.equal(typeof state, 'string');
          // Sealed: the framework state ({ asked: true }) shows neither in the token nor decoded.
          for (const part of [state, ...state.split(/[._]/)])
            assert.doesNotMatch(Buffer.from(part, 'base64url').toString('latin1') + part, /asked/);
          assert.equal(retry.params.requestState, state);
          assert.deepEqual(retry.params.inputResponses, {
            confirm: { action: 'accept', content: { confirm: true } },
          });
          assert.notEqual(retry.result.resultType, 'input_required');
        });
      });
    }
  });
}
