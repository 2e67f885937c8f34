// Pack-and-install test: packs this package with `npm pack`, installs the tarball and its peers
// (at the versions in package-lock.json) into a fresh Nest 11 app in the OS temp folder, compiles
// the app with tsc under `nodenext` resolution (so TypeScript sees exactly the exports map and the
// shipped .d.ts) and calls its tool with the official client, once on Express and once on Fastify.
//
// Usage: node --test scripts/pack-install-test.mjs   (npm run test:pack)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
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
const PROTOCOL_VERSION = '2026-07-28';
const PEERS = [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
  'reflect-metadata',
  'rxjs',
  'class-validator',
  'class-transformer',
  'typescript',
  '@types/node',
  '@modelcontextprotocol/client',
];
const STARTUP_TIMEOUT_MS = 20_000;

const APP_MAIN = `import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Injectable, Module, ValidationPipe } from '@nestjs/common';
import { APP_PIPE, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IsString, MaxLength } from 'class-validator';
import { McpArgs, McpModule, McpTool } from 'nestjs-mcp';

class GreetDto {
  @IsString()
  @MaxLength(20)
  name!: string;
}

@Injectable()
class Greeter {
  @McpTool({ description: 'Greets someone by name' })
  greet(@McpArgs() { name }: GreetDto): string {
    return \`Hello, \${name}!\`;
  }
}

@Module({
  imports: [McpModule.forRoot({ serverInfo: { name: 'pack-test', version: '1.0.0' } })],
  providers: [Greeter, { provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true }) }],
})
class AppModule {}

async function main(): Promise<void> {
  const adapter = process.argv[2] === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(AppModule, adapter, { logger: ['error'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  console.log(\`listening on http://127.0.0.1:\${port}/mcp\`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

// A unit test of the tool with the testing helper, type-checked (not run) like the app.
const APP_GREETER_SPEC = `import { createTestOperationContext } from 'nestjs-mcp/testing';

const ctx = createTestOperationContext({ target: 'greet', user: { id: 'alice' } });
export const principal: unknown = ctx.http.request.user;
export const reports: number = ctx.progressReports.length;
`;

const APP_TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'ES2022',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    // As in a `nest new` app; Nest's own .d.ts would want @types/express otherwise.
    skipLibCheck: true,
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

/** The version package-lock.json pins for `name`. */
function lockedVersion(name) {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in package-lock.json`);
  return version;
}

/** Throws with the command's output unless its spawnSync `result` says it succeeded. */
function check(result, command) {
  if (result.status !== 0) {
    throw new Error(
      `${command} failed (${result.status ?? result.error}):\n${result.stdout}${result.stderr}`,
    );
  }
}

/** Runs npm in `cwd`. */
function npm(args, cwd) {
  check(runNpm(args, { cwd, encoding: 'utf8' }), `npm ${args.join(' ')}`);
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
        resolveStart({ child, url: new URL(listening[1]) });
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

describe('the packed tarball installed into a fresh Nest 11 app', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-pack-'));
  const appDir = join(workDir, 'app');
  const running = new Set();

  before(
    () => {
      const packDir = join(workDir, 'pack');
      mkdirSync(packDir);
      npm(['pack', '--pack-destination', packDir], ROOT);
      const tarballs = readdirSync(packDir).filter((file) => file.endsWith('.tgz'));
      assert.equal(tarballs.length, 1, `npm pack wrote ${tarballs.join(', ') || 'nothing'}`);

      mkdirSync(join(appDir, 'src'), { recursive: true });
      writeFileSync(
        join(appDir, 'package.json'),
        JSON.stringify({ name: 'pack-test-app', version: '1.0.0', private: true }, null, 2),
      );
      writeFileSync(join(appDir, 'tsconfig.json'), JSON.stringify(APP_TSCONFIG, null, 2));
      writeFileSync(join(appDir, 'src/main.ts'), APP_MAIN);
      writeFileSync(join(appDir, 'src/greeter.check.ts'), APP_GREETER_SPEC);
      npm(
        [
          'install',
          '--prefer-offline',
          '--no-audit',
          '--no-fund',
          join(packDir, tarballs[0]),
          ...PEERS.map((name) => `${name}@${lockedVersion(name)}`),
        ],
        appDir,
      );
      const tsc = join(appDir, 'node_modules/typescript/bin/tsc');
      check(
        spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], {
          cwd: appDir,
          encoding: 'utf8',
        }),
        'tsc',
      );
    },
    { timeout: 240_000 },
  );

  after(async () => {
    await Promise.all([...running].map(stop));
    rmSync(workDir, { recursive: true, force: true });
  });

  it('ships the build with its types, the license, the README and the docs, and no source maps', () => {
    const installed = join(appDir, 'node_modules/nestjs-mcp');
    const files = listFiles(installed);
    for (const file of [
      'LICENSE',
      'README.md',
      'docs/errors.md',
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
    for (const [condition, target] of Object.entries(manifest.exports['.']))
      assert.ok(
        existsSync(join(installed, target)),
        `exports["."].${condition}: ${target} is missing`,
      );
  });

  for (const adapter of ['express', 'fastify']) {
    it(`serves a class-validator DTO tool on ${adapter}`, { timeout: 60_000 }, async () => {
      const { child, url } = await startApp(appDir, adapter);
      running.add(child);
      const { Client, StreamableHTTPClientTransport } = createRequire(join(appDir, 'package.json'))(
        '@modelcontextprotocol/client',
      );
      const client = new Client(
        { name: 'nestjs-mcp-pack-test', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } },
      );
      try {
        await client.connect(new StreamableHTTPClientTransport(url));
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})]),
          [['greet', ['name']]],
        );
        const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
        await assert.rejects(
          client.callTool({ name: 'greet', arguments: { name: 'x'.repeat(21) } }),
          (error) => error.code === -32602,
        );
      } finally {
        await client.close();
        await stop(child);
        running.delete(child);
      }
    });
  }
});
