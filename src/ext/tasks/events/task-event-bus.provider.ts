import type { Provider } from '@nestjs/common';
import { MemoryTaskEventBus } from './memory-task-event-bus';
import { RedisTaskEventBus } from './redis-task-event-bus';
import { TaskEventBus } from './task-event-bus';
import { KeyringRecordIntegrity, McpRedisConnection } from '../../../extension-api';

/**
 * Task status changes travel over Redis when the `redis` option is set, else stay in this process.
 * @internal
 */
export const TaskEventBusProvider: Provider = {
  provide: TaskEventBus,
  useFactory: (redis: McpRedisConnection, integrity: KeyringRecordIntegrity): TaskEventBus =>
    redis.configured ? new RedisTaskEventBus(redis, integrity) : new MemoryTaskEventBus(),
  inject: [McpRedisConnection, KeyringRecordIntegrity],
};
