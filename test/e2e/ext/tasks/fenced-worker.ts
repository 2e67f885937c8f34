// One worker instance of a fleet in its own process, for the test that pauses it (SIGSTOP) while
// it runs a step. Environment: REDIS_PORT, QUEUE, KEYRING (JSON). It runs BullMQ steps with a 1 s
// lock, and prints "ready" once it takes steps, "started <taskId> <pid>" when the tool starts and
// "effect <taskId> <pid>" when it performs its side effect and "step-ended <taskId> <pid>" once the
// module is done with the step; the module's own log lines follow.
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';
import { McpContext, McpModule, McpTool, type McpOperationContext } from '../../../../src/index';
import type { TaskWork } from '../../../../src/entry/tasks';
import { BullMqTaskRunner, RedisTaskStore } from '../../../../src/entry/redis';
import { sleep } from '../../../utils/wait';
import { fencedToolsOptions } from './fenced-tools';

const client = new Redis(Number(process.env.REDIS_PORT), '127.0.0.1', { maxRetriesPerRequest: 1 });

/** The module's runner, saying when each step it ran is over (whatever became of it). */
class ReportingRunner extends BullMqTaskRunner {
  override attach(work: TaskWork): void {
    super.attach(async (taskId, signal, lease) => {
      try {
        await work(taskId, signal, lease);
      } finally {
        process.stdout.write(`step-ended ${taskId} ${process.pid}\n`);
      }
    });
  }
}

const runner = new ReportingRunner(client, {
  queueName: process.env.QUEUE,
  lockDurationMs: 1_000,
  stalledIntervalMs: 500,
});

@Injectable()
class FencedTools {
  @McpTool({ description: 'Waits, then performs its side effect', taskSupport: 'required' })
  async slow_effect(@McpContext() ctx: McpOperationContext): Promise<string> {
    const taskId = ctx.task?.id ?? '?';
    process.stdout.write(`started ${taskId} ${process.pid}\n`);
    await sleep(1_500);
    process.stdout.write(`effect ${taskId} ${process.pid}\n`);
    await client.rpush(`effects:${taskId}`, String(process.pid));
    return `done by ${process.pid}`;
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      ...fencedToolsOptions(),
      tasks: { store: new RedisTaskStore(client, { keyPrefix: 'fenced:' }), runner },
    }),
  ],
  providers: [FencedTools],
})
class FencedWorkerModule {}

void (async () => {
  const app = await NestFactory.create(FencedWorkerModule, {
    logger: ['error', 'warn', 'log'],
  });
  await app.listen(0, '127.0.0.1');
  await runner.whenReady();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
})();
