import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { ResolvedMcpOptions } from '../../mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS } from '../../mcp-resolved-options.token';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { providedInstance } from '../../ports/app-provided-instance';
import { ConsumedStateStore } from './consumed-state-store.interface';
import { MemoryConsumedStateStore } from './memory-consumed-state.store';
import { RedisConsumedStateStore } from './redis-consumed-state.store';

/**
 * The store single-use states are consumed in, chosen once at startup: the `consumedStateStore`
 * option, or a `ConsumedStateStore` the application provides in any module, or Redis when the
 * `redis` option is set, or one in memory bounded by `requestState.maxConsumedStates`.
 * @internal
 */
@Injectable()
export class ConsumedStateStoreDelegate
  implements ConsumedStateStore, OnModuleInit, OnModuleDestroy
{
  private store: ConsumedStateStore | undefined;
  /** The in-memory default, created (and so closed) here. */
  private own: MemoryConsumedStateStore | undefined;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly modules: ModulesContainer,
    private readonly redis: McpRedisConnection,
  ) {}

  onModuleInit(): void {
    this.store = providedInstance<ConsumedStateStore>(
      this.modules,
      ConsumedStateStore,
      'consumedStateStore',
      this.options.consumedStateStore,
    );
    if (!this.store && this.redis.configured) {
      this.store = new RedisConsumedStateStore(this.redis.client, {
        keyPrefix: this.redis.prefix,
        commandTimeoutMs: this.redis.commandTimeoutMs,
      });
    }
    if (!this.store) {
      this.own = new MemoryConsumedStateStore({
        maxEntries: this.options.requestState.maxConsumedStates,
      });
      this.store = this.own;
    }
  }

  onModuleDestroy(): void {
    this.own?.close();
  }

  consume(id: string, expiresAt: number): Promise<boolean> {
    if (!this.store) return Promise.reject(new Error('McpModule has not finished initializing'));
    return this.store.consume(id, expiresAt);
  }
}
