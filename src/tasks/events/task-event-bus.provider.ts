import type { Provider } from '@nestjs/common';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { MemoryTaskEventBus } from './memory-task-event-bus';
import { RedisTaskEventBus } from './redis-task-event-bus';
import { TaskEventBus } from './task-event-bus';

/** Task status changes travel over Redis when the `redis` option is set, else stay in this process. */
export const TaskEventBusProvider: Provider = {
  provide: TaskEventBus,
  useFactory: (redis: McpRedisConnection): TaskEventBus =>
    redis.configured ? new RedisTaskEventBus(redis) : new MemoryTaskEventBus(),
  inject: [McpRedisConnection],
};
