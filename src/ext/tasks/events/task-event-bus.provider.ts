import type { Provider } from '@nestjs/common';
import { KeyringRecordIntegrity } from '../../../keyring/record-integrity';
import { McpRedisConnection } from '../../../redis/mcp-redis.connection';
import { MemoryTaskEventBus } from './memory-task-event-bus';
import { RedisTaskEventBus } from './redis-task-event-bus';
import { TaskEventBus } from './task-event-bus';

/** Task status changes travel over Redis when the `redis` option is set, else stay in this process. */
export const TaskEventBusProvider: Provider = {
  provide: TaskEventBus,
  useFactory: (redis: McpRedisConnection, integrity: KeyringRecordIntegrity): TaskEventBus =>
    redis.configured ? new RedisTaskEventBus(redis, integrity) : new MemoryTaskEventBus(),
  inject: [McpRedisConnection, KeyringRecordIntegrity],
};
