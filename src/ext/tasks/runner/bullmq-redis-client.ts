import type { RedisCommandClient } from '../store/redis-task.store';

/**
 * What {@link BullMqTaskRunner} uses of an ioredis `Redis` client: commands, `duplicate()` for the
 * connections it owns (the worker's and the cancel subscriber's) and pub/sub. Kept structural so
 * that ioredis stays an optional peer dependency.
 *
 * @publicApi
 */
export interface BullMqRedisClient extends RedisCommandClient {
  duplicate(override?: { maxRetriesPerRequest?: number | null }): BullMqRedisClient;
  subscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/** ioredis connection options (`host`, `port`, `password`, `tls`, …), for a runner that connects itself. @publicApi */
export interface BullMqConnectionOptions {
  host?: string;
  port?: number;
  [option: string]: unknown;
}

/** Whether `connection` is a client (else it is options to connect with). @internal */
export function isRedisClient(
  connection: BullMqRedisClient | BullMqConnectionOptions,
): connection is BullMqRedisClient {
  return typeof (connection as Partial<BullMqRedisClient>).duplicate === 'function';
}
