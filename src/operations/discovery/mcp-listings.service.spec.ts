import type { DiscoveryOptions } from './discovery.options';
import { McpListedResources, unguardedResource } from './listed-resources';
import { McpListings } from './mcp-listings.service';
import { McpOperationRegistry } from './mcp-operation.registry';
import type { ToolEntry } from './operation-entry.interface';

const tool = (name: string) =>
  ({
    kind: 'tool',
    name,
    listing: { name, inputSchema: { type: 'object' } },
  }) as unknown as ToolEntry;

describe('McpListings', () => {
  const options = { listPageSize: 2 } as DiscoveryOptions;

  it('serves the same page object while nothing is registered, and a new one after', () => {
    const registry = new McpOperationRegistry();
    registry.register(tool('a'));
    registry.register(tool('b'));
    const listings = new McpListings(registry, options, new McpListedResources());
    const first = listings.tools(undefined);
    expect(first.items.map((item) => item.name)).toEqual(['a', 'b']);
    expect(first.nextCursor).toBeUndefined();
    expect(listings.tools(undefined)).toBe(first);
    registry.register(tool('c'));
    const after = listings.tools(undefined);
    expect(after).not.toBe(first);
    expect(after.nextCursor).toBeDefined();
    expect(listings.tools(after.nextCursor).items.map((item) => item.name)).toEqual(['c']);
  });

  it('keeps the four lists apart', () => {
    const registry = new McpOperationRegistry();
    registry.register(tool('a'));
    const listings = new McpListings(registry, options, new McpListedResources());
    expect(listings.prompts(undefined).membersJson).toBe('"prompts":[]');
    expect(listings.resources(undefined).membersJson).toBe('"resources":[]');
    expect(listings.resourceTemplates(undefined).membersJson).toBe('"resourceTemplates":[]');
  });

  it('lists contributed resources after the resource operations, and rebuilds when they change', () => {
    const registry = new McpOperationRegistry();
    const contributed = new McpListedResources();
    const listings = new McpListings(registry, options, contributed);
    const skill = (uri: string) => unguardedResource({ uri, name: uri });
    contributed.replace('skills', [skill('skill://a/SKILL.md')]);
    const first = listings.resources(undefined);
    expect(first.items.map((item) => item.uri)).toEqual(['skill://a/SKILL.md']);
    expect(listings.resources(undefined)).toBe(first);
    contributed.replace('skills', [skill('skill://a/SKILL.md'), skill('skill://b/SKILL.md')]);
    expect(listings.resources(undefined).items.map((item) => item.uri)).toEqual([
      'skill://a/SKILL.md',
      'skill://b/SKILL.md',
    ]);
  });
});
