import type { McpRedisClient } from './mcp-redis-client';
import { isClusterClient } from './cluster-key-prefix';

/** ioredis options a duplicated connection may override. @internal */
export interface McpRedisConnectionOverrides {
  /** `null` for a connection that blocks (a BullMQ worker's). */
  maxRetriesPerRequest?: number | null;
  lazyConnect?: boolean;
  connectionName?: string;
}

/**
 * A new connection like `client` (an ioredis `Redis` or `Cluster`) with `overrides`. A cluster takes
 * its per-node options under `redisOptions` and its start nodes first, so it cannot be duplicated
 * the way a single client is.
 * @internal
 */
export function duplicateConnection(
  client: Pick<McpRedisClient, 'duplicate'>,
  overrides: McpRedisConnectionOverrides = {},
): McpRedisClient {
  if (!isClusterClient(client)) return client.duplicate(overrides);
  const { lazyConnect, ...perNode } = overrides;
  const shared = (client as { options?: { redisOptions?: object } }).options?.redisOptions;
  return client.duplicate(undefined, {
    ...(lazyConnect !== undefined && { lazyConnect }),
    redisOptions: { ...shared, ...perNode },
  });
}
