import type { McpRedisClient } from './mcp-redis-client';

/**
 * What the module's Redis-backed stores and buses use of an ioredis client on the module's
 * connection ({@link McpRedisConnection}): all of {@link McpRedisClient}, plus publishing.
 * Structural, so that no declaration file of this package imports the optional peer `ioredis`; the
 * connection returns real ioredis clients, and the compiler checks that they fit.
 * @internal
 */
export interface McpRedisConnectionClient extends McpRedisClient {
  publish(channel: string, message: string): Promise<number>;
  removeAllListeners(event: 'message'): unknown;
}
