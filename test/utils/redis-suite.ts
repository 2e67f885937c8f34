import Redis from 'ioredis';
import { startRedisServer, type RedisServerHandle } from './redis-server';
import { SuiteScope } from './suite-resource';

/** What {@link redisForSuite} opens. */
export interface SuiteRedis {
  /** A redis-server of the block's own (see {@link startRedisServer}). */
  readonly server: RedisServerHandle;
  /** An ioredis client of the tests' own on it, connected, one retry per command. */
  readonly client: Redis;
}

/**
 * A redis-server and a client on it for the tests of the block that calls this, opened in `scope`
 * (a scope of their own when omitted): what the block opens after them in the same scope, the apps
 * that use Redis, closes before them (see {@link SuiteScope}).
 */
export function redisForSuite(scope: SuiteScope = new SuiteScope()): SuiteRedis {
  const server = scope.open(startRedisServer, (redis) => redis.close());
  const client = scope.open(
    async () => {
      const connected = new Redis(server.port, '127.0.0.1', {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
      });
      await connected.connect();
      return connected;
    },
    (connected) => connected.disconnect(),
  );
  return { server, client };
}
