import type { Cluster } from 'ioredis';
import type Redis from 'ioredis';
import type { McpModuleOptions } from '../../src/index';
import { BullMqTaskRunner, type BullMqTaskRunnerOptions } from '../../src/entry/redis';
import { sampleRedisClient } from './sample-redis-client';

/**
 * The sample's BullMQ runner on a client of its own, closed with the runner: the runner never
 * closes the client it is given, and the sample has no other use for this one.
 */
export class SampleTaskRunner extends BullMqTaskRunner {
  private readonly ownClient: Redis | Cluster;

  constructor(redis: NonNullable<McpModuleOptions['redis']>, options: BullMqTaskRunnerOptions) {
    // The runner says once per outage that it cannot reach Redis.
    const client = sampleRedisClient(redis);
    super(client, options);
    this.ownClient = client;
  }

  override async close(): Promise<void> {
    await super.close();
    await this.ownClient.quit().catch(() => this.ownClient.disconnect());
  }
}
