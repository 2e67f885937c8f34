import type { McpRedisClient } from './mcp-redis-client';

/**
 * What the module's Redis-backed stores and buses use of an ioredis client on the module's
 * connection ({@link McpRedisConnection}): commands, pub/sub and its status. Structural, so that
 * no declaration file of this package imports the optional peer `ioredis`; the connection returns
 * real ioredis clients, and the compiler checks that they fit.
 * @internal
 */
export interface McpRedisConnectionClient extends McpRedisClient {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  evalsha(sha1: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  publish(channel: string, message: string): Promise<number>;
  subscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  removeAllListeners(event: 'message'): unknown;
}

/** ioredis options a duplicated connection may override. @internal */
export interface McpRedisConnectionOverrides {
  /** `null` for a connection that blocks (a BullMQ worker's). */
  maxRetriesPerRequest?: number | null;
  lazyConnect?: boolean;
  connectionName?: string;
}
