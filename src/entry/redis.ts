// `nestjs-mcp/redis`: the Redis (ioredis) and BullMQ adapters, for apps that wire them by hand. The
// `redis` module option picks the same adapters without importing anything from here. Importing
// this subpath needs the optional peers it uses (`ioredis`, and `bullmq` for the runner). One
// shape for every adapter: `new Adapter(client, options?)`, the client an ioredis client the
// application owns (typed `McpRedisClient`), the command bound named `commandTimeoutMs`.

export type { McpRedisClient } from '../redis/mcp-redis-client';
export {
  RedisConsumedStateStore,
  type RedisConsumedStateStoreOptions,
} from '../request-state/stores/one-time/redis-consumed-state.store';
export {
  RedisStateHandleRepository,
  type RedisStateHandleRepositoryOptions,
} from '../request-state/stores/handles/redis-state-handle.repository';
export { RedisTaskStore, type RedisTaskStoreOptions } from '../ext/tasks/store/redis-task.store';
export {
  RedisSessionStore,
  type RedisSessionStoreOptions,
} from '../ext/sessions/store/redis-session.store';
export { BullMqTaskRunner } from '../ext/tasks/runner/bullmq-task.runner';
export type { BullMqTaskRunnerOptions } from '../ext/tasks/runner/bullmq-task-runner.options';
