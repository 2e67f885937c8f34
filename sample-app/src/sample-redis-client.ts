import Redis, { Cluster, type RedisOptions } from 'ioredis';
import type { McpModuleOptions } from '../../src/index';

/**
 * A Redis client of the sample's own on the same Redis as the module's connection (a URL, a
 * Sentinel set or a cluster), failing fast while Redis is down instead of queueing commands. Its
 * owner closes it.
 */
export function sampleRedisClient(redis: NonNullable<McpModuleOptions['redis']>): Redis | Cluster {
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
  // Its owner says what failed; ioredis would print every retry.
  client.on('error', () => undefined);
  return client;
}

/** The same Sentinel set as the module's connection. */
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
