import type { McpRedisClient } from '../../../extension-api';

/**
 * What {@link BullMqTaskRunner} uses of an ioredis `Redis` client: commands, `duplicate()` for the
 * connections it owns (the worker's and the cancel subscriber's) and pub/sub.
 * @publicApi
 */
export type BullMqRedisClient = Pick<
  McpRedisClient,
  'call' | 'duplicate' | 'subscribe' | 'on' | 'disconnect'
>;
