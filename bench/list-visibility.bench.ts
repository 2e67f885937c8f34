/**
 * What per-caller lists cost: `tools/list` of an app with BENCH_TOOLS (1,000) tools, half of them
 * behind a method guard, under a global authentication guard, with `auth.lists: 'caller'` (every
 * tool's guards run) against `'public'` (none run), in one process on 127.0.0.1. Prints the CPU
 * time of this process (server and client together: compare the two rows, not the absolute) and
 * the wall time per list, over BENCH_LISTS (200) sequential lists after a warm-up.
 *
 * Run: npm run bench:lists
 */
import 'reflect-metadata';
import {
  Injectable,
  Module,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { McpModule, McpTool } from '../src/index';

const TOOLS = Number(process.env.BENCH_TOOLS ?? 1_000);
const LISTS = Number(process.env.BENCH_LISTS ?? 200);

@Injectable()
class HeaderAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context
      .switchToHttp()
      .getRequest<{ headers: Record<string, string>; user?: unknown }>();
    if (request.headers['x-user']) request.user = { id: request.headers['x-user'], admin: false };
    return true;
  }
}

@Injectable()
class AdminGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return (
      (context.switchToHttp().getRequest<{ user?: { admin?: boolean } }>().user?.admin ?? false) ===
      true
    );
  }
}

/** A provider with `TOOLS` tools, every other one admin-only. */
function toolsClass(): new () => object {
  class ManyTools {}
  for (let i = 0; i < TOOLS; i++) {
    const name = `tool_${i}`;
    const method = function () {
      return 'ok';
    };
    Object.defineProperty(ManyTools.prototype, name, {
      value: method,
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(ManyTools.prototype, name)!;
    if (i % 2 === 1) UseGuards(AdminGuard)(ManyTools.prototype, name, descriptor);
    McpTool({ name, description: `Tool ${i}`, inputSchema: { type: 'object', properties: {} } })(
      ManyTools.prototype,
      name,
      descriptor,
    );
  }
  Injectable()(ManyTools);
  return ManyTools;
}

async function measure(
  lists: 'caller' | 'public',
): Promise<{ cpuMs: number; wallMs: number; shown: number }> {
  const Tools = toolsClass();
  @Module({
    imports: [McpModule.forRoot({ auth: { lists }, allowEphemeralKey: true })],
    providers: [Tools, AdminGuard, { provide: APP_GUARD, useClass: HeaderAuthGuard }],
  })
  class BenchModule {}
  const app = await NestFactory.create(BenchModule, { logger: ['error'], abortOnError: false });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as { address(): AddressInfo }).address();
  const list = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        'x-user': 'alice',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const body = (await response.json()) as { result: { tools: unknown[] } };
    return body.result.tools.length;
  };
  for (let i = 0; i < 20; i++) await list();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  let shown = 0;
  for (let i = 0; i < LISTS; i++) shown = await list();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6 / LISTS;
  const used = process.cpuUsage(cpu);
  await app.close();
  return { cpuMs: (used.user + used.system) / 1000 / LISTS, wallMs, shown };
}

void (async () => {
  const rows: string[] = [];
  for (const lists of ['public', 'caller', 'public', 'caller'] as const) {
    const { cpuMs, wallMs, shown } = await measure(lists);
    rows.push(
      `${lists.padEnd(6)}  ${shown} of ${TOOLS} tools listed  CPU ${cpuMs.toFixed(2)} ms/list  wall ${wallMs.toFixed(2)} ms/list`,
    );
  }
  console.log(rows.join('\n'));
})().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
