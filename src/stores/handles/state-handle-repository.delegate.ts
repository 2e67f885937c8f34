import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { ResolvedMcpOptions } from '../../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-resolved-options.token';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { providedInstance } from '../../ports/app-provided-instance';
import { MemoryStateHandleRepository } from './memory-state-handle.repository';
import { RedisStateHandleRepository } from './redis-state-handle.repository';
import { StateHandleRepository, type StateHandleRecord } from './state-handle-repository.interface';

/**
 * The repository state handles live in, chosen once at startup: the `stateHandleRepository`
 * option, or a `StateHandleRepository` the application provides in any module, or Redis when the
 * `redis` option is set, or one in memory bounded by `requestState.maxStateHandles`.
 * @internal
 */
@Injectable()
export class StateHandleRepositoryDelegate
  implements StateHandleRepository, OnModuleInit, OnModuleDestroy
{
  private repository: StateHandleRepository | undefined;
  /** The in-memory default, created (and so closed) here. */
  private own: MemoryStateHandleRepository | undefined;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly modules: ModulesContainer,
    private readonly redis: McpRedisConnection,
  ) {}

  onModuleInit(): void {
    this.repository = providedInstance<StateHandleRepository>(
      this.modules,
      StateHandleRepository,
      'stateHandleRepository',
      this.options.stateHandleRepository,
    );
    if (!this.repository && this.redis.configured) {
      this.repository = new RedisStateHandleRepository({
        client: this.redis.client,
        keyPrefix: this.redis.key('handle', ''),
        timeoutMs: this.redis.commandTimeoutMs,
      });
    }
    if (!this.repository) {
      this.own = new MemoryStateHandleRepository({
        maxEntries: this.options.requestState.maxStateHandles,
      });
      this.repository = this.own;
    }
  }

  onModuleDestroy(): void {
    this.own?.close();
  }

  put(handle: string, record: StateHandleRecord): Promise<void> {
    return this.active().put(handle, record);
  }

  redeem(
    handle: string,
    binding: string,
    replacement: string,
  ): Promise<StateHandleRecord | undefined> {
    return this.active().redeem(handle, binding, replacement);
  }

  delete(handle: string): Promise<void> {
    return this.active().delete(handle);
  }

  private active(): StateHandleRepository {
    if (!this.repository) throw new Error('McpModule has not finished initializing');
    return this.repository;
  }
}
