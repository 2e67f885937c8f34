import { TASK_KEY_SEGMENT } from './guarded-task-store';
import { MemoryTaskStore } from './memory-task.store';
import { RedisTaskStore } from './redis-task.store';
import { TASK_STORE_PORT, type TaskStore } from './task-store.interface';
import { TASK_OPTIONS, type ResolvedTaskOptions } from '../task.options';
import { KeyringRecordIntegrity, McpRedisConnection, portProvider } from '../../../extension-api';

/**
 * The task store port as a provider: the `tasks.store` option, an application's provider of
 * `TaskStore`, or the module's own (Redis when the `redis` option is set, else memory); a Redis
 * store keeps its records tagged under the keyring.
 * @internal
 */
export const TASK_STORE_PROVIDER = portProvider(TASK_STORE_PORT, {
  inject: [TASK_OPTIONS, McpRedisConnection, KeyringRecordIntegrity],
  fromOptions: (options: ResolvedTaskOptions) => options.store,
  fallback: (options: ResolvedTaskOptions, redis: McpRedisConnection) =>
    redis.configured
      ? new RedisTaskStore(redis.bounded, {
          keyPrefix: redis.key(TASK_KEY_SEGMENT, ''),
          maxTasks: options.maxTasks,
          maxBytes: options.maxStoreBytes,
          commandTimeoutMs: redis.commandTimeoutMs,
        })
      : new MemoryTaskStore({ maxTasks: options.maxTasks, maxBytes: options.maxStoreBytes }),
  adopt: (
    store: TaskStore,
    _: ResolvedTaskOptions,
    _redis: McpRedisConnection,
    integrity: KeyringRecordIntegrity,
  ) => {
    // A Redis store, whoever made it, keeps its records tagged under the keyring.
    if (store instanceof RedisTaskStore) {
      integrity.ensureKey();
      store.authenticateRecordsWith(integrity);
    }
  },
});
