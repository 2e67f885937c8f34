/**
 * The server of the fleet curve of `bench/scale.bench.ts`: nestjs-mcp with the two tools a fleet
 * shares work through, as an app would declare them:
 * - `transfer`: FRAMEWORK_PROTECTED and `singleUse: true` (the sample's `transfer_funds` shape):
 *   round 1 asks for an approval, round 2 with the answer transfers; its state is accepted once;
 * - `park`: task-optional, completes at once (a task the bench creates here and reads elsewhere).
 * FLEET_REDIS_URL gives the module the `redis` option (single-use states and tasks on Redis,
 * task events over pub/sub); without it everything stays in this process's memory.
 * FLEET_RUNNER=bullmq runs task steps on a `BullMqTaskRunner` on that Redis (steps run by any
 * instance's worker) instead of in the process that created the task.
 * FLEET_REDIS_CLUSTER_NODES (`host:port,…`) gives it a Redis Cluster instead (`redis.cluster`).
 * FLEET_REDIS_AUTOPIPELINE=1 gives it, instead of the URL, an ioredis client with
 * `enableAutoPipelining` (`redis.client`): what ioredis's auto-pipelining does for the module.
 * FLEET_KEYRING (base64 of 32 bytes) is the keyring every instance of a fleet shares.
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  McpArgs,
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpRequestStateMode,
  McpTool,
} from '../../src/index';
import Redis from 'ioredis';
import { BullMqTaskRunner } from '../../src/entry/redis';
import { BENCH_SERVER_INFO, portOf, serveBench } from './harness';

const REDIS_URL = process.env.FLEET_REDIS_URL;
const CLUSTER_NODES = process.env.FLEET_REDIS_CLUSTER_NODES;
const KEY = process.env.FLEET_KEYRING;

/** The module's `redis` option for this instance, from the environment. */
function redisOption() {
  if (CLUSTER_NODES) return { redis: { cluster: { nodes: CLUSTER_NODES.split(',') } } };
  if (!REDIS_URL) return {};
  if (process.env.FLEET_REDIS_AUTOPIPELINE === '1')
    return { redis: { client: new Redis(REDIS_URL, { enableAutoPipelining: true }) } };
  return { redis: { url: REDIS_URL } };
}
const runner =
  REDIS_URL && process.env.FLEET_RUNNER === 'bullmq'
    ? new BullMqTaskRunner(new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }), { concurrency: 20 })
    : undefined;
if (!KEY) throw new Error('FLEET_KEYRING (base64 of 32 bytes) is required');

const APPROVAL = {
  message: 'Approve the transfer?',
  requestedSchema: {
    type: 'object' as const,
    properties: { approve: { type: 'boolean' as const } },
    required: ['approve'],
  },
};

@Injectable()
class FleetTools {
  transfers = 0;

  @McpTool({
    name: 'transfer',
    description: 'Transfers an amount after an approval; its state is single-use',
    inputSchema: {
      type: 'object',
      properties: { amount: { type: 'string' }, to: { type: 'string' } },
      required: ['amount', 'to'],
    },
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
    singleUse: true,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  transfer(
    @McpArgs() args: { amount: string; to: string },
    @McpContext() ctx: McpContext,
  ): McpInputRequiredResult | string {
    const answer = ctx.requestState.framework<{ asked: boolean }>()?.asked
      ? ctx.inputResponses.find('approve')
      : undefined;
    if (answer?.kind !== 'elicitation')
      return McpInputRequiredResult.builder()
        .inputRequest('approve', McpInputRequest.elicitForm(APPROVAL))
        .frameworkState({ asked: true })
        .build();
    this.transfers++;
    return `Transferred ${args.amount} to ${args.to}`;
  }

  @McpTool({ name: 'park', description: 'Completes at once, as a task', taskSupport: 'optional' })
  park(): string {
    return 'parked';
  }
}

@Module({
  imports: [
    McpModule.forRoot({
      serverInfo: BENCH_SERVER_INFO,
      allowEphemeralKey: false,
      keyring: { active: 'fleet', keys: { fleet: KEY } },
      ...redisOption(),
      // One caller (anonymous) makes every flow of the bench: its shares must hold a run's worth.
      requestState: { maxConsumedStates: 10_000_000, maxConsumedStatesPerCaller: 10_000_000 },
      tasks: {
        maxTasks: 1_000_000,
        maxTasksPerCaller: 1_000_000,
        maxStoreBytesPerCaller: 1_073_741_824,
        ...(runner ? { runner } : {}),
      },
    }),
  ],
  providers: [FleetTools],
})
class FleetModule {}

serveBench(async () => {
  const started = performance.now();
  const app = await NestFactory.create(FleetModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const startupMs = performance.now() - started;
  return {
    port: portOf(app.getHttpServer()),
    startupMs,
    commands: { transfers: () => app.get(FleetTools).transfers },
    close: () => app.close(),
  };
});
