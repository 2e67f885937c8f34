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
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  lockedVersion,
  NEST_CONSUMERS,
  node,
  npm,
  packTarball,
  ROOT,
  startApp,
  stop,
} from './consumer-app.mjs';

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
    tarball = packTarball(workDir);
  },
  { timeout: 120_000 },
);

after(() => rmSync(workDir, { recursive: true, force: true }));

for (const consumer of NEST_CONSUMERS) {
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
            const app = await startApp(appDir, { args: [adapter] });
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
