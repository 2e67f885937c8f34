/**
 * What a tool registered at run time costs against the same tool declared with a decorator: two
 * apps with BENCH_TOOLS (1,000) tools each — one declares them with `@McpTool`, the other
 * registers the same definitions with `McpRuntimeOperations.registerTool` — each in a child
 * process of its own on 127.0.0.1, answering BENCH_REQUESTS (400) sequential `tools/list` first
 * pages (the default page size) and as many `tools/call`s of the middle tool, after a warm-up. It
 * prints the server's CPU time per request (the child's own `process.cpuUsage()`, so the client is
 * not counted) and the ratio run-time / decorated, alternating the two apps BENCH_PASSES (5)
 * times: each one's least disturbed pass (the minimum, which the target is judged on) and its
 * median. Target: ratio ≤ 1.10 for both. BENCH_SAMPLES=1 prints every pass.
 *
 * Numbers taken on a loaded machine (other test runs, other benches) are not trustworthy: the
 * two apps are measured one after the other, so load that comes and goes lands on one of them
 * (CPU time grows under contention too: caches, frequency); the minimum is the least affected.
 *
 * Run: npm run bench:runtime
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { McpModule, McpTool } from '../src/index';
import { McpRuntimeOperations } from '../src/entry/runtime';

const TOOLS = Number(process.env.BENCH_TOOLS ?? 1_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const PASSES = Number(process.env.BENCH_PASSES ?? 5);
const SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string', maxLength: 1_000 } },
  required: ['text'],
};
const definitionOf = (index: number) => ({
  name: `tool_${String(index).padStart(5, '0')}`,
  description: `Tool ${index}: echoes its text`,
  inputSchema: SCHEMA,
});
const echo = (args: { text?: unknown }) => String(args.text);

type Kind = 'decorated' | 'runtime';

/** The app of the child process: the same tools, declared or registered. */
function appModule(kind: Kind): new () => object {
  class DecoratedTools {}
  if (kind === 'decorated')
    for (let index = 0; index < TOOLS; index++) {
      const key = `tool${index}`;
      // A function of its own: the decorator's metadata lives on it.
      Object.defineProperty(DecoratedTools.prototype, key, {
        value: (args: { text?: unknown }) => echo(args),
        writable: true,
        configurable: true,
      });
      const descriptor = Object.getOwnPropertyDescriptor(DecoratedTools.prototype, key)!;
      McpTool(definitionOf(index))(DecoratedTools.prototype, key, descriptor);
      Reflect.defineMetadata('design:paramtypes', [Object], DecoratedTools.prototype, key);
    }
  Injectable()(DecoratedTools);

  @Injectable()
  class RuntimeTools implements OnModuleInit {
    constructor(private readonly runtime: McpRuntimeOperations) {}

    async onModuleInit(): Promise<void> {
      if (kind !== 'runtime') return;
      for (let index = 0; index < TOOLS; index++)
        await this.runtime.registerTool(definitionOf(index), echo as never);
    }
  }

  @Module({
    imports: [McpModule.forRoot({ allowEphemeralKey: true })],
    providers: [DecoratedTools, RuntimeTools],
  })
  class BenchModule {}
  return BenchModule;
}

/** In the child: serves the app, measures its own CPU between the parent's marks. */
async function serve(kind: Kind): Promise<void> {
  const app = await NestFactory.create(appModule(kind), { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as { address(): AddressInfo }).address();
  let mark = process.cpuUsage();
  process.on('message', (message: string) => {
    if (message === 'mark') mark = process.cpuUsage();
    else if (message === 'read') {
      const used = process.cpuUsage(mark);
      process.send?.({ cpuMs: (used.user + used.system) / 1000 });
    } else if (message === 'stop') void app.close().then(() => process.exit(0));
  });
  process.send?.({ port });
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function post(port: number, method: string, params: object, name?: string) {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
  });
  return (await response.json()) as { result?: { tools?: unknown[] }; error?: unknown };
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(message);
  });
}

/** Server CPU per request of `kind`: `[list page, call]`, in ms. */
async function measure(kind: Kind): Promise<[number, number]> {
  const child = fork(__filename, [kind], { execArgv: process.execArgv });
  const { port } = await new Promise<{ port: number }>((resolve) =>
    child.once('message', (message) => resolve(message as { port: number })),
  );
  const middle = definitionOf(Math.floor(TOOLS / 2)).name;
  const list = () => post(port, 'tools/list', {});
  const call = () => post(port, 'tools/call', { name: middle, arguments: { text: 'hi' } }, middle);
  const page = await list();
  if (page.error || !page.result?.tools?.length)
    throw new Error(`${kind}: ${JSON.stringify(page)}`);
  const costs: number[] = [];
  for (const request of [list, call]) {
    for (let i = 0; i < 50; i++) await request();
    child.send('mark');
    for (let i = 0; i < REQUESTS; i++) await request();
    costs.push((await ask<{ cpuMs: number }>(child, 'read')).cpuMs / REQUESTS);
  }
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  return costs as [number, number];
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const samples: Record<Kind, [number, number][]> = { decorated: [], runtime: [] };
  for (let pass = 0; pass < PASSES; pass++)
    for (const kind of ['decorated', 'runtime'] as const) samples[kind].push(await measure(kind));
  if (process.env.BENCH_SAMPLES) console.log(JSON.stringify(samples));
  const of = (kind: Kind, at: 0 | 1, pick: (values: number[]) => number) =>
    pick(samples[kind].map((costs) => costs[at]));
  const rows = (['list page', 'call'] as const).map((what, at) => {
    const [decorated, runtime] = (['decorated', 'runtime'] as const).map((kind) =>
      of(kind, at as 0 | 1, (values) => Math.min(...values)),
    );
    const [decoratedMedian, runtimeMedian] = (['decorated', 'runtime'] as const).map((kind) =>
      of(kind, at as 0 | 1, median),
    );
    const ratio = runtime / decorated;
    return (
      `${what.padEnd(10)} decorated ${decorated.toFixed(3)} ms  run-time ${runtime.toFixed(3)} ms  ` +
      `ratio ${ratio.toFixed(3)} ${ratio <= 1.1 ? 'met' : 'MISSED'} (≤ 1.10)  ` +
      `[medians ${decoratedMedian.toFixed(3)} / ${runtimeMedian.toFixed(3)}: ${(runtimeMedian / decoratedMedian).toFixed(3)}]`
    );
  });
  console.log(
    `${TOOLS} tools, ${REQUESTS} requests per measure, server CPU per request: least disturbed of ${PASSES} passes`,
  );
  console.log(rows.join('\n'));
}

const role = process.argv[2];
(role === 'decorated' || role === 'runtime' ? serve(role) : main()).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
