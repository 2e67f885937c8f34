import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ProtocolError } from '@modelcontextprotocol/server';
import { internalError } from '../../errors/internal-error';
import type { ResolvedMcpOptions } from '../../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-resolved-options.token';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { RedisCommandError } from '../../redis/redis-command.error';
import { providedInstance } from '../../ports/app-provided-instance';
import type { McpTaskRecord } from './mcp-task.types';
import { MemoryTaskStore } from './memory-task.store';
import { RedisTaskStore } from './redis-task.store';
import { TaskCapacityError } from './task-capacity.error';
import { TaskStore, type TaskCreationLimits } from './task-store.interface';

/** Key segment of tasks under the `redis.keyPrefix`: `<prefix>task:<taskId>`. */
export const TASK_KEY_SEGMENT = 'task';

/**
 * The store tasks live in, chosen once at startup: the `tasks.store` option, or a `TaskStore` the
 * application provides in any module, or Redis (on the module's connection, under
 * `<redis.keyPrefix>task:`) when the `redis` option is set, or one in memory. A store that fails
 * answers the caller with the bare -32603 and logs only why (a Redis failure's reason, or the
 * error's name), never the error's message, which may quote the store's own secrets.
 * @internal
 */
@Injectable()
export class TaskStoreDelegate implements TaskStore, OnModuleInit {
  private readonly logger = new Logger('McpTasks');
  private store: TaskStore | undefined;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly modules: ModulesContainer,
    private readonly redis: McpRedisConnection,
  ) {}

  onModuleInit(): void {
    this.store =
      providedInstance<TaskStore>(
        this.modules,
        TaskStore,
        'tasks.store',
        this.options.tasks.store,
      ) ?? (this.redis.configured ? this.redisStore() : new MemoryTaskStore());
  }

  create(task: McpTaskRecord, limits?: TaskCreationLimits): Promise<void> {
    return this.guarded('created', (store) => store.create(task, limits));
  }

  get(taskId: string): Promise<McpTaskRecord | undefined> {
    return this.guarded('read', (store) => store.get(taskId));
  }

  replace(next: McpTaskRecord, expectedVersion: number): Promise<boolean> {
    return this.guarded('updated', (store) => store.replace(next, expectedVersion));
  }

  private redisStore(): TaskStore {
    const redis = this.redis;
    return new RedisTaskStore(
      // Through run(): refused at once while disconnected, bounded by redis.commandTimeoutMs.
      { call: (command, ...args) => redis.run((client) => client.call(command, ...args)) },
      { keyPrefix: redis.key(TASK_KEY_SEGMENT, '') },
    );
  }

  private async guarded<T>(
    failedTo: 'created' | 'read' | 'updated',
    use: (store: TaskStore) => Promise<T>,
  ): Promise<T> {
    if (!this.store) throw new Error('McpModule has not finished initializing');
    try {
      return await use(this.store);
    } catch (error) {
      if (error instanceof TaskCapacityError || error instanceof ProtocolError) throw error;
      const reason =
        error instanceof RedisCommandError
          ? error.reason
          : String((error as { name?: unknown } | null)?.name ?? 'unknown');
      this.logger.error(`A task could not be ${failedTo} (${reason})`);
      throw internalError();
    }
  }
}
