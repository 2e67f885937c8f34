import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { McpNotifier } from '../../../src/index';
import { McpRuntimeOperations } from '../../../src/entry/runtime';
import { redisFromEnv } from '../sample-config';
import { sampleRedisClient } from '../sample-redis-client';
import type { SampleToolDefinition } from './sample-tool-definition';
import {
  MemorySampleToolStore,
  RedisSampleToolStore,
  type SampleToolStore,
} from './sample-tool-store';
import { templatedHandler, templatedTool } from './templated-tool';

/**
 * The operators' tools, kept in step across the fleet: the definitions live in one store (Redis
 * with `MCP_STORE=redis`), each instance registers its own (a handler is code, so it never
 * travels: every tool runs the same templated handler), and a change is announced over the
 * module's fleet bus (`McpNotifier.definitionsChanged`); every other instance then reads that
 * definition again and registers or removes it. An instance that starts reads them all.
 */
@Injectable()
export class RuntimeTools implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('RuntimeTools');
  private readonly store: SampleToolStore;
  /** One reload at a time per tool, in the order announced: the last one read wins. */
  private readonly reloads = new Map<string, Promise<void>>();
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly runtime: McpRuntimeOperations,
    private readonly notifier: McpNotifier,
  ) {
    const redis = redisFromEnv();
    this.store = redis
      ? new RedisSampleToolStore(sampleRedisClient(redis))
      : new MemorySampleToolStore();
  }

  async onApplicationBootstrap(): Promise<void> {
    this.stopListening = this.notifier.onDefinitionsChanged((change) => {
      if (change.kind === 'tool') void this.reload(change.name);
    });
    try {
      for (const definition of await this.store.all()) await this.register(definition);
    } catch (error) {
      this.logger.warn(`The run-time tools could not be read: ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopListening?.();
    await this.store.close();
  }

  /**
   * Registers `definition` here (the module refuses one it would refuse at startup, before
   * anything is kept), keeps it for the fleet and tells the other instances.
   */
  async define(definition: SampleToolDefinition): Promise<void> {
    await this.runtime.registerTool(templatedTool(definition), templatedHandler(definition));
    await this.store.save(definition);
    this.notifier.definitionsChanged({ kind: 'tool', name: definition.name });
  }

  /** Removes the tool everywhere; `false` when no operator defined it. */
  async remove(name: string): Promise<boolean> {
    const existed = await this.store.delete(name);
    const here = this.runtime.unregisterTool(name);
    this.notifier.definitionsChanged({ kind: 'tool', name });
    return existed || here;
  }

  private reload(name: string): Promise<void> {
    const previous = this.reloads.get(name) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        const definition = await this.store.get(name);
        if (definition) await this.register(definition);
        else this.runtime.unregisterTool(name);
      } catch (error) {
        this.logger.warn(
          `Run-time tool "${name}" could not be reloaded: ${(error as Error).message}`,
        );
      }
    });
    this.reloads.set(name, next);
    void next.finally(() => {
      if (this.reloads.get(name) === next) this.reloads.delete(name);
    });
    return next;
  }

  private async register(definition: SampleToolDefinition): Promise<void> {
    try {
      await this.runtime.registerTool(templatedTool(definition), templatedHandler(definition));
    } catch (error) {
      this.logger.warn(
        `Run-time tool "${definition.name}" is not served: ${(error as Error).message}`,
      );
    }
  }
}
