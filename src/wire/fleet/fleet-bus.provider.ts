import type { Provider } from '@nestjs/common';
import { KeyringRecordIntegrity } from '../../keyring/record-integrity';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { FleetBus } from './fleet-bus';
import { MemoryFleetBus } from './memory-fleet-bus';
import { NOTIFICATION_OPTIONS, type NotificationOptions } from './notification.options';
import { RedisFleetBus } from './redis-fleet-bus';

/**
 * Fleet events travel over Redis (authenticated) when the `redis` option is set, else stay here.
 * @internal
 */
export const FleetBusProvider: Provider = {
  provide: FleetBus,
  useFactory: (
    redis: McpRedisConnection,
    integrity: KeyringRecordIntegrity,
    options: NotificationOptions,
  ): FleetBus => {
    if (!redis.configured) return new MemoryFleetBus();
    // Every message is tagged under the keyring: a key to tag with from the start.
    integrity.ensureKey();
    return new RedisFleetBus(redis, integrity, options.maxEventBytes);
  },
  inject: [McpRedisConnection, KeyringRecordIntegrity, NOTIFICATION_OPTIONS],
};
