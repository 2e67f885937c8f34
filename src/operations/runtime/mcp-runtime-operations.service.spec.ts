import { Injectable, type CanActivate } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { McpOperationRegistry } from '../discovery/mcp-operation.registry';
import type { OperationEntryFactory } from '../discovery/operation-entry.factory';
import type { OperationEntry } from '../discovery/operation-entry.interface';
import { McpRuntimeOperations } from './mcp-runtime-operations.service';

@Injectable()
class SlowGuard implements CanActivate {
  canActivate(): boolean {
    return true;
  }
}

/** A registry of run-time tools whose guard classes resolve when `release()` is called. */
function setup() {
  const registry = new McpOperationRegistry();
  let release: () => void = () => undefined;
  const resolved = new Promise<void>((done) => (release = done));
  const moduleRef = {
    get: () => {
      throw new Error('not provided');
    },
    create: async () => {
      await resolved;
      return new SlowGuard();
    },
  } as unknown as ModuleRef;
  const entries = {
    build: (_host: object, _method: string, metadata: { options: { name: string } }) =>
      ({
        kind: 'tool',
        name: metadata.options.name,
        site: { className: 'x', methodName: 'y' },
        profile: { scopes: [] },
      }) as unknown as OperationEntry,
  } as unknown as OperationEntryFactory;
  return { registry, runtime: new McpRuntimeOperations(registry, entries, moduleRef), release };
}

const slow = { name: 'slow', description: 'Slow to resolve', guards: [SlowGuard] };

describe('McpRuntimeOperations while a registration resolves its enhancers', () => {
  it('lets a removal asked for meanwhile win: the tool is not served', async () => {
    const { registry, runtime, release } = setup();
    const registering = runtime.registerTool(slow, () => 'slow');
    expect(runtime.unregisterTool('slow')).toBe(false);
    release();
    await registering;
    expect(registry.findTool('slow')).toBeUndefined();
  });

  it('lets a later registration win over an earlier one', async () => {
    const { registry, runtime, release } = setup();
    const first = runtime.registerTool({ ...slow, description: 'first' }, () => 'first');
    const second = runtime.registerTool({ name: 'slow', description: 'second' }, () => 'second');
    await second;
    release();
    await first;
    expect(registry.findTool('slow')).toBeDefined();
    expect(registry.generation).toBe(1);
  });

  it('refuses a definition without a name, or a handler that is not a function, serving nothing', async () => {
    const { registry, runtime } = setup();
    await expect(runtime.registerTool({ name: '', description: 'x' }, () => 'x')).rejects.toThrow(
      'a "name" is required',
    );
    await expect(
      runtime.registerTool({ name: 'x', description: 'x' }, 'x' as never),
    ).rejects.toThrow('the handler must be a function');
    expect(registry.getTools()).toEqual([]);
  });
});
