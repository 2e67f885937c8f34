/**
 * The server of `bench/scale.bench.ts`: nestjs-mcp with SCALE_TOOLS generated tools (the app of
 * test/e2e/operations/generated-operations.fixtures.ts) and the tools the curves call:
 * - `measure`: returns the length of its `text` argument (arguments up to 2 MB, a small answer);
 * - `rounds`: FRAMEWORK_PROTECTED, asks for a form until it has asked `rounds` times;
 * - `ledger`: `replay: true`, asks `asks` questions one after the other with `ctx.elicit()`;
 * - `park`: task-optional, completes at once (a task of it is what the task curve parks);
 * - `once`: FRAMEWORK_PROTECTED and `singleUse: true`, asks once, then completes (the single-use
 *   curve: each of its states is accepted once).
 * SCALE_BALLAST_MIB: see {@link BALLAST_MIB}.
 * SCALE_REDIS_URL keeps the tasks in Redis (`RedisTaskStore`) instead of the memory store.
 * SCALE_STATE_REDIS_URL gives the module the `redis` option (single-use states consumed on that
 * Redis instead of the default in-memory store) and a client of its own for `redis-ping`.
 * BENCH_VARIANT `fastify` serves it on Fastify. Commands (see harness.ts): `heap` (heap after a
 * full GC), `park` (copies the one real task into the memory store until it holds `count`),
 * `notify` (sends tools/list_changed to every listen stream, timing the loop), `listen-open`,
 * `redis-ping` (this process's CPU µs per ioredis `PING` to SCALE_STATE_REDIS_URL, over `count`).
 */
import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  McpArgs,
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpNotifier,
  McpRequestStateMode,
  McpTool,
} from '../../src/index';
import { MemoryTaskStore } from '../../src/entry/tasks';
import { RedisTaskStore } from '../../src/entry/redis';
import type { TaskStore } from '../../src/ext/tasks/store/task-store.interface';
import Redis from 'ioredis';
import { ListenEndpoint } from '../../src/wire/listen/listen-endpoint';
import { generatedOperationsApp } from '../../test/e2e/operations/generated-operations.fixtures';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';

const TOOLS = Number(process.env.SCALE_TOOLS ?? 10);
/**
 * SCALE_BALLAST_MIB keeps that much unrelated data alive (small objects, as a registry holds):
 * a control that tells a larger heap's cost from a cost per registered operation.
 */
const BALLAST_MIB = Number(process.env.SCALE_BALLAST_MIB ?? 0);
const ballast: { id: number; name: string; tags: string[] }[] = [];
// ~200 bytes of heap per entry.
for (let i = 0; i < (BALLAST_MIB * 2 ** 20) / 200; i++)
  ballast.push({ id: i, name: `entry-${i}`, tags: [`t${i % 7}`, `g${i % 13}`] });
const FORM = {
  message: 'Go on?',
  requestedSchema: {
    type: 'object' as const,
    properties: { ok: { type: 'boolean' as const } },
    required: ['ok'],
  },
};

@Injectable()
class ScaleTools {
  @McpTool({
    name: 'measure',
    description: 'Returns the length of its text argument',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 2_000_000 } },
      required: ['text'],
    },
  })
  measure(@McpArgs('text') text: string): string {
    return String(text.length);
  }

  @McpTool({
    name: 'rounds',
    description: 'Asks for a form until it has asked `rounds` times',
    inputSchema: { type: 'object', properties: { rounds: { type: 'integer' } } },
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  rounds(
    @McpArgs('rounds') rounds: number,
    @McpContext() ctx: McpContext,
  ): McpInputRequiredResult | string {
    const asked = ctx.requestState.framework<{ asked: number }>()?.asked ?? 0;
    if (asked >= rounds) return `done after ${asked}`;
    return McpInputRequiredResult.builder()
      .inputRequest(`round-${asked + 1}`, McpInputRequest.elicitForm(FORM))
      .frameworkState({ asked: asked + 1 })
      .build();
  }

  @McpTool({
    name: 'ledger',
    description: 'Asks `asks` questions one after the other',
    inputSchema: { type: 'object', properties: { asks: { type: 'integer' } } },
    replay: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  async ledger(@McpArgs('asks') asks: number, @McpContext() ctx: McpContext): Promise<string> {
    for (let index = 0; index < asks; index++) await ctx.elicit(FORM);
    return `answered ${asks}`;
  }

  @McpTool({ name: 'park', description: 'Completes at once, as a task', taskSupport: 'optional' })
  park(): string {
    return 'parked';
  }

  @McpTool({
    name: 'once',
    description: 'Asks once, then completes; each of its states is accepted once',
    inputSchema: { type: 'object', properties: {} },
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    singleUse: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  once(@McpContext() ctx: McpContext): McpInputRequiredResult | string {
    if (ctx.requestState.framework<{ asked: boolean }>()?.asked) return 'done';
    return McpInputRequiredResult.builder()
      .inputRequest('once', McpInputRequest.elicitForm(FORM))
      .frameworkState({ asked: true })
      .build();
  }
}

const REDIS_URL = process.env.SCALE_REDIS_URL;
const redis = REDIS_URL ? new Redis(REDIS_URL) : undefined;
const store: TaskStore = redis
  ? new RedisTaskStore(redis, { maxTasks: 1_000_000, maxBytes: 2 ** 34 })
  : new MemoryTaskStore({ maxTasks: 1_000_000 });
const STATE_REDIS_URL = process.env.SCALE_STATE_REDIS_URL;
/** A client of the bench's own on the single-use store's Redis: what one round trip costs here. */
const pingClient = STATE_REDIS_URL ? new Redis(STATE_REDIS_URL) : undefined;
/** Tasks written so far (the one real task included). */
let parked = 1;

@Module({
  imports: [
    generatedOperationsApp(
      { tools: TOOLS },
      {
        serverInfo: BENCH_SERVER_INFO,
        allowEphemeralKey: false,
        keyring: { active: 'bench', keys: { bench: randomBytes(32) } },
        listen: { maxStreams: 20_000, maxStreamsPerCaller: 20_000 },
        // One caller (anonymous) makes every single-use round of the bench: its share must hold a run's worth.
        requestState: {
          maxRounds: 100,
          maxConsumedStates: 10_000_000,
          maxConsumedStatesPerCaller: 10_000_000,
        },
        ...(STATE_REDIS_URL ? { redis: { url: STATE_REDIS_URL } } : {}),
        tasks: { store, maxTasksPerCaller: 1_000_000 },
      },
    ),
  ],
  providers: [ScaleTools],
})
class ScaleModule {}

function heap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

serveBench(async () => {
  const adapter =
    process.env.BENCH_VARIANT === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const started = performance.now();
  const app = await NestFactory.create(ScaleModule, adapter, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const startupMs = performance.now() - started;
  const notifier = app.get(McpNotifier);
  const listen = app.get(ListenEndpoint);
  return {
    port: portOf(app.getHttpServer()),
    startupMs,
    commands: {
      heap: () => heap(),
      'listen-open': () => listen.limiter.openStreams,
      /** Fills the store with copies of the task `arg.taskId` until it holds `arg.count`. */
      park: async (arg) => {
        const { taskId, count } = arg as { taskId: string; count: number };
        const task = await store.get(taskId);
        if (!task) throw new Error(`no task ${taskId}`);
        while (parked < count) {
          const batch = Math.min(500, count - parked);
          await Promise.all(
            Array.from({ length: batch }, (_, i) =>
              store.create({ ...task, taskId: randomUUID(), partition: `p${parked + i}` }),
            ),
          );
          parked += batch;
        }
        return parked;
      },
      /** This process's CPU µs per `PING` round trip, over `count` sequential pings. */
      'redis-ping': async (arg) => {
        if (!pingClient) throw new Error('redis-ping needs SCALE_STATE_REDIS_URL');
        const { count } = arg as { count: number };
        for (let i = 0; i < 100; i++) await pingClient.ping();
        const cpu = process.cpuUsage();
        for (let i = 0; i < count; i++) await pingClient.ping();
        const used = process.cpuUsage(cpu);
        return (used.user + used.system) / count;
      },
      'redis-memory': async () => {
        const info = String(await redis?.info('memory'));
        return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
      },
      notify: async () => {
        const delay = monitorEventLoopDelay({ resolution: 1 });
        delay.enable();
        const cpu = process.cpuUsage();
        const begin = performance.now();
        notifier.toolsChanged();
        const syncMs = performance.now() - begin;
        await new Promise((resolve) => setTimeout(resolve, 500));
        delay.disable();
        const used = process.cpuUsage(cpu);
        return {
          syncMs,
          maxLoopDelayMs: delay.max / 1e6,
          cpuUs: used.user + used.system,
        };
      },
    },
    close: async () => {
      await app.close();
      redis?.disconnect();
      pingClient?.disconnect();
    },
  };
});
