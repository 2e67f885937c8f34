/**
 * Memory held by open `subscriptions/listen` streams at the default limits. A child process
 * serves the MCP endpoint (so only the server's memory is measured); this process opens
 * `maxStreams` streams, each from its own caller and following `maxResourceSubscriptions` URIs of
 * `maxUriLength` characters, and reads the server's heap and RSS after a full GC, per stream.
 * It then checks that one stream more is refused and that closing them frees the slots.
 *
 * Run: npm run bench:listen  (ADAPTER=fastify for Fastify; STREAMS=200 for fewer streams)
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { McpModule } from '../src/index';
import { resolveMcpOptions } from '../src/mcp-options.resolver';
import { ListenEndpoint } from '../src/wire/listen/listen-endpoint';

const LIMITS = resolveMcpOptions().listen;
const STREAMS = Number(process.env.STREAMS ?? LIMITS.maxStreams);
const PROTOCOL_VERSION = '2026-07-28';

interface Usage {
  heapUsed: number;
  rss: number;
  external: number;
  open: number;
}

// ---- server (child process) ----

async function serve(): Promise<void> {
  @Module({ imports: [McpModule.forRoot({ listen: { maxStreams: STREAMS } })] })
  class BenchModule {}
  const adapter = process.env.ADAPTER === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(BenchModule, adapter, { logger: false });
  await app.listen(0, '127.0.0.1');
  const endpoint = app.get(ListenEndpoint);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the server with --expose-gc');
  process.on('message', (message) => {
    if (message === 'measure') {
      for (let i = 0; i < 4; i++) gc();
      const usage = process.memoryUsage();
      const reply: Usage = {
        heapUsed: usage.heapUsed,
        rss: usage.rss,
        external: usage.external,
        open: endpoint.limiter.openStreams,
      };
      process.send?.(reply);
    } else if (message === 'exit') {
      void app.close().then(() => process.exit(0));
    }
  });
  process.send?.({ port: (app.getHttpServer() as { address(): { port: number } }).address().port });
}

// ---- client (this process) ----

interface Stream {
  status: number;
  first: string;
  request: ClientRequest;
}

const PAD_BYTES = Number(process.env.PAD_BYTES ?? 1024 * 1024);

function listenBody(id: number, uris: string[], pad = 0): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      notifications: { toolsListChanged: true, resourceSubscriptions: uris },
      ...(pad > 0 ? { padding: 'p'.repeat(pad) } : {}),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** Opens a listen stream and resolves with its status and first SSE event (or error body). */
function open(port: number, id: number, caller: string, uris: string[], pad = 0): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': PROTOCOL_VERSION,
          'Mcp-Method': 'subscriptions/listen',
          Authorization: `Bearer ${caller}`,
        },
      },
      (response) => {
        let text = '';
        let first: string | undefined;
        const done = () =>
          resolve({ status: response.statusCode ?? 0, first: first ?? text, request });
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (first !== undefined) return;
          text += chunk;
          const end = text.indexOf('\n\n');
          if (end === -1) return;
          first = text.slice(0, end);
          done();
        });
        response.on('end', done);
      },
    );
    request.on('error', reject);
    request.end(listenBody(id, uris, pad));
  });
}

function uriList(stream: number, count: number, length: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const prefix = `bench://s${stream}/r${i}/`;
    return prefix + 'x'.repeat(length - prefix.length);
  });
}

async function main(): Promise<void> {
  const child: ChildProcess = fork(__filename, ['--serve'], {
    execArgv: ['--expose-gc', '-r', 'ts-node/register/transpile-only'],
    env: { ...process.env, TS_NODE_PROJECT: 'tsconfig.json' },
  });
  const next = <T>(): Promise<T> => new Promise((resolve) => child.once('message', resolve));
  const { port } = await next<{ port: number }>();
  const measure = async (): Promise<Usage> => {
    const reply = next<Usage>();
    child.send('measure');
    return reply;
  };
  const settle = async (open: number): Promise<Usage> => {
    for (;;) {
      const usage = await measure();
      if (usage.open === open) return usage;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

  const scenario = async (name: string, uris: (stream: number) => string[], pad = 0) => {
    // Warm up code paths and pools so the baseline is comparable.
    const warm = await Promise.all(
      Array.from({ length: 20 }, (_, i) => open(port, i, `warm-${i}`, uris(i), pad)),
    );
    for (const stream of warm) stream.request.destroy();
    const before = await settle(0);
    const streams: Stream[] = [];
    for (let batch = 0; batch < STREAMS; batch += 50) {
      const size = Math.min(50, STREAMS - batch);
      streams.push(
        ...(await Promise.all(
          Array.from({ length: size }, (_, i) =>
            open(port, batch + i, `${name}-${batch + i}`, uris(batch + i), pad),
          ),
        )),
      );
    }
    const opened = streams.filter((stream) => stream.status === 200).length;
    const held = await settle(opened);
    const extra = await open(port, STREAMS, `${name}-extra`, uris(STREAMS), pad);
    extra.request.destroy();
    for (const stream of streams) stream.request.destroy();
    const after = await settle(0);
    const refill = await open(port, STREAMS + 1, `${name}-refill`, uris(STREAMS + 1), pad);
    refill.request.destroy();
    await settle(0);
    const heap = held.heapUsed - before.heapUsed;
    const rss = held.rss - before.rss;
    console.log(`\n${name}: ${opened}/${STREAMS} streams open`);
    console.log(
      `  heap ${mib(before.heapUsed)} -> ${mib(held.heapUsed)} (+${mib(heap)}, ${kib(heap / opened)}/stream)`,
    );
    console.log(
      `  rss  ${mib(before.rss)} -> ${mib(held.rss)} (+${mib(rss)}, ${kib(rss / opened)}/stream)`,
    );
    const external = held.external - before.external;
    console.log(`  external +${mib(external)} (${kib(external / opened)}/stream)`);
    console.log(`  stream ${STREAMS + 1}: HTTP ${extra.status} ${extra.first.trim()}`);
    console.log(
      `  after closing all: ${after.open} open, heap ${mib(after.heapUsed)}; a new stream gets HTTP ${refill.status}`,
    );
  };

  console.log(
    `${process.env.ADAPTER ?? 'express'}, limits ${JSON.stringify({ ...LIMITS, maxStreams: STREAMS })}`,
  );
  await scenario('tools list changes only', () => []);
  await scenario(
    `${LIMITS.maxResourceSubscriptions} URIs of ${LIMITS.maxUriLength} characters`,
    (stream) => uriList(stream, LIMITS.maxResourceSubscriptions, LIMITS.maxUriLength),
  );
  if (PAD_BYTES > 0) {
    await scenario(`tools list changes, body padded to ${kib(PAD_BYTES)}`, () => [], PAD_BYTES);
  }
  child.send('exit');
}

if (process.argv.includes('--serve')) void serve();
else void main();
