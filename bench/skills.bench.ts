/**
 * What a large skills folder costs (docs/skills.md, "Bounds"): the startup of an app serving a
 * folder of 500 files of 30 KB against the same app with an empty folder (passes interleaved,
 * medians compared, so the difference is what the files cost on this machine now), and the
 * event loop's longest stall while a 1 MB skill file is read through `resources/read` again and
 * again (against the stall of `tools/list` measured the same way, the baseline).
 *
 * Targets (issue "Skills"): startup at most 1 s more than the empty folder; no stall over 20 ms
 * while the 1 MB file is served.
 *
 * Run: npm run bench:skills  (PASSES=7 by default)
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { McpModule } from '../src/index';

const PASSES = Number(process.env.PASSES ?? 7);
const FILES = 500;
const FILE_BYTES = 30_000;
const READS = 200;

function folderOf(files: number): string {
  const root = mkdtempSync(join(tmpdir(), 'skills-bench-'));
  const skill = join(root, 'big-skill');
  mkdirSync(join(skill, 'references'), { recursive: true });
  writeFileSync(
    join(skill, 'SKILL.md'),
    '---\nname: big-skill\ndescription: A skill with many files.\n---\n\nSee references/.\n',
  );
  // Printable text, as skill files are: served as text, digested as bytes.
  for (let i = 1; i < files; i++)
    writeFileSync(
      join(skill, 'references', `doc-${i}.md`),
      randomBytes(FILE_BYTES * 0.75).toString('base64'),
    );
  return root;
}

async function startApp(directory: string): Promise<{ app: INestApplication; ms: number }> {
  const started = performance.now();
  @Module({ imports: [McpModule.forRoot({ skills: { directory, maxSkillBytes: 16_777_216 } })] })
  class BenchModule {}
  const app = await NestFactory.create(BenchModule, new ExpressAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, ms: performance.now() - started };
}

function urlOf(app: INestApplication): string {
  const { port } = (app.getHttpServer() as { address(): { port: number } }).address();
  return `http://127.0.0.1:${port}/mcp`;
}

async function post(url: string, method: string, params: object): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      // SEP-2243: a request naming a resource names it in a header too.
      ...('uri' in params && { 'mcp-name': String((params as { uri: string }).uri) }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        },
      },
    }),
  });
  const text = await response.text();
  if (!text.includes('"result"')) throw new Error(`${method} failed: ${text.slice(0, 200)}`);
}

/** The longest event-loop stall (ms) while `READS` requests are served one after another. */
async function stallWhile(send: () => Promise<void>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  for (let i = 0; i < READS; i++) await send();
  histogram.disable();
  return histogram.max / 1e6;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const empty = mkdtempSync(join(tmpdir(), 'skills-bench-empty-'));
  const big = folderOf(FILES);
  const bigFile = folderOf(1);
  writeFileSync(join(bigFile, 'big-skill', 'references', 'LARGE.md'), 'x'.repeat(1_000_000));
  try {
    // Warm-up: module loading and the first Nest bootstrap are paid once, outside the passes.
    for (const folder of [empty, big]) await (await startApp(folder)).app.close();
    const emptyMs: number[] = [];
    const bigMs: number[] = [];
    for (let pass = 0; pass < PASSES; pass++) {
      for (const [folder, into] of [
        [empty, emptyMs],
        [big, bigMs],
      ] as const) {
        const { app, ms } = await startApp(folder);
        into.push(ms);
        await app.close();
      }
    }
    const extra = median(bigMs) - median(emptyMs);
    console.log(
      `startup, median of ${PASSES}: empty folder ${median(emptyMs).toFixed(0)} ms, ` +
        `${FILES} files of ${FILE_BYTES / 1000} KB ${median(bigMs).toFixed(0)} ms: ` +
        `+${extra.toFixed(0)} ms (target <= 1000) ${extra <= 1000 ? 'OK' : 'OVER'}`,
    );

    const { app } = await startApp(bigFile);
    try {
      const url = urlOf(app);
      const baseline = await stallWhile(() => post(url, 'tools/list', {}));
      const large = await stallWhile(() =>
        post(url, 'resources/read', { uri: 'skill://big-skill/references/LARGE.md' }),
      );
      console.log(
        `longest loop stall over ${READS} requests: tools/list ${baseline.toFixed(1)} ms, ` +
          `resources/read of a 1 MB skill file ${large.toFixed(1)} ms (target <= 20) ` +
          `${large <= 20 ? 'OK' : 'OVER'}`,
      );
    } finally {
      await app.close();
    }
  } finally {
    for (const folder of [empty, big, bigFile]) rmSync(folder, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
