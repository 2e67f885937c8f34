import type { Provider } from '@nestjs/common';
import { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { NOTIFICATION_OPTIONS, type NotificationOptions } from './notification.options';
import { MemorySessionEventBus } from './memory-session-event-bus';
import { RedisSessionEventBus } from './redis-session-event-bus';
import { SessionEventBus } from './session-event-bus';

/**
 * Fleet events travel over Redis (authenticated) when the `redis` option is set, else stay here.
 * @internal
 */
export const SessionEventBusProvider: Provider = {
  provide: SessionEventBus,
  useFactory: (
    redis: McpRedisConnection,
    integrity: KeyringRecordIntegrity,
    options: NotificationOptions,
  ): SessionEventBus => {
    if (!redis.configured) return new MemorySessionEventBus();
    integrity.ensureKey();
    return new RedisSessionEventBus(redis, integrity, options.maxEventBytes);
  },
  inject: [McpRedisConnection, KeyringRecordIntegrity, NOTIFICATION_OPTIONS],
};
