import type { Cluster } from 'ioredis';
import type Redis from 'ioredis';
import type { SampleToolDefinition } from './sample-tool-definition';

/** Where the operators' tool definitions live: the fleet's one source of truth. */
export interface SampleToolStore {
  all(): Promise<SampleToolDefinition[]>;
  get(name: string): Promise<SampleToolDefinition | undefined>;
  save(definition: SampleToolDefinition): Promise<void>;
  /** Whether there was one to delete. */
  delete(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/** One process's definitions (`MCP_STORE=memory`). */
export class MemorySampleToolStore implements SampleToolStore {
  private readonly definitions = new Map<string, SampleToolDefinition>();

  async all(): Promise<SampleToolDefinition[]> {
    return [...this.definitions.values()];
  }

  async get(name: string): Promise<SampleToolDefinition | undefined> {
    return this.definitions.get(name);
  }

  async save(definition: SampleToolDefinition): Promise<void> {
    this.definitions.set(definition.name, definition);
  }

  async delete(name: string): Promise<boolean> {
    return this.definitions.delete(name);
  }

  async close(): Promise<void> {}
}

/** The fleet's definitions in one Redis hash, name to JSON (`MCP_STORE=redis`). */
export class RedisSampleToolStore implements SampleToolStore {
  private static readonly KEY = 'nestjs-mcp-sample:runtime-tools';

  constructor(private readonly client: Redis | Cluster) {}

  async all(): Promise<SampleToolDefinition[]> {
    const stored = await this.client.hvals(RedisSampleToolStore.KEY);
    return stored.map((json) => JSON.parse(json) as SampleToolDefinition);
  }

  async get(name: string): Promise<SampleToolDefinition | undefined> {
    const json = await this.client.hget(RedisSampleToolStore.KEY, name);
    return json === null ? undefined : (JSON.parse(json) as SampleToolDefinition);
  }

  async save(definition: SampleToolDefinition): Promise<void> {
    await this.client.hset(RedisSampleToolStore.KEY, definition.name, JSON.stringify(definition));
  }

  async delete(name: string): Promise<boolean> {
    return (await this.client.hdel(RedisSampleToolStore.KEY, name)) > 0;
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
