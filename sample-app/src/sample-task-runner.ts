import Redis, { Cluster, type RedisOptions } from 'ioredis';
import type { McpModuleOptions } from '../../src/index';
import { BullMqTaskRunner, type BullMqTaskRunnerOptions } from '../../src/entry/redis';

/**
 * The sample's BullMQ runner on a client of its own, closed with the runner: the runner never
 * closes the client it is given, and the sample has no other use for this one.
 */
export class SampleTaskRunner extends BullMqTaskRunner {
  private readonly ownClient: Redis | Cluster;

  constructor(redis: NonNullable<McpModuleOptions['redis']>, options: BullMqTaskRunnerOptions) {
    // Fail fast while Redis is down instead of queueing commands.
    const client = redis.cluster
      ? new Cluster(redis.cluster.nodes.map(hostPort), {
          redisOptions: {
            maxRetriesPerRequest: 1,
            ...(redis.cluster.password && { password: redis.cluster.password }),
          },
        })
      : redis.sentinel
        ? new Redis({ ...sentinelOptions(redis.sentinel), maxRetriesPerRequest: 1 })
        : new Redis(redis.url as string, { maxRetriesPerRequest: 1 });
    super(client, options);
    // The runner says once per outage that it cannot reach Redis; ioredis would print every retry.
    client.on('error', () => undefined);
    this.ownClient = client;
  }

  override async close(): Promise<void> {
    await super.close();
    await this.ownClient.quit().catch(() => this.ownClient.disconnect());
  }
}

/** The same Sentinel set as the module's connection, for the runner's own client. */
function sentinelOptions(
  sentinel: NonNullable<NonNullable<McpModuleOptions['redis']>['sentinel']>,
): RedisOptions {
  return {
    sentinels: sentinel.sentinels.map(hostPort),
    name: sentinel.name,
    ...(sentinel.password && { password: sentinel.password }),
  };
}

function hostPort(entry: string): { host: string; port: number } {
  const colon = entry.lastIndexOf(':');
  return { host: entry.slice(0, colon), port: Number(entry.slice(colon + 1)) };
}
