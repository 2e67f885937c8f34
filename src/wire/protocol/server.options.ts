import type { CacheHint } from '@modelcontextprotocol/server';
import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';

/** Which MCP list or read results a cache hint applies to. @publicApi */
export type McpCacheableMethod =
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';

const CACHEABLE: McpCacheableMethod[] = [
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
];

/** What the server says of itself, and the cache hints it gives. @internal */
export interface ServerOptions {
  readonly serverInfo: { name: string; version: string; title?: string };
  readonly instructions: string | undefined;
  readonly cacheHints: Readonly<Record<McpCacheableMethod, CacheHint>>;
}

/** Injection token of the resolved {@link ServerOptions}. @internal */
export const SERVER_OPTIONS = Symbol('ServerOptions');

/** Fills the server defaults and checks each value, naming the first bad option. @internal */
export function resolveServerOptions(
  options: {
    serverInfo?: { name: string; version: string; title?: string };
    instructions?: unknown;
    cacheHints?: Partial<Record<string, CacheHint>>;
  },
  defaultVersion: string,
): ServerOptions {
  const serverInfo = options.serverInfo ?? { name: 'nestjs-mcp', version: defaultVersion };
  if (
    typeof serverInfo.name !== 'string' ||
    serverInfo.name === '' ||
    typeof serverInfo.version !== 'string' ||
    serverInfo.version === ''
  ) {
    throw new InvalidModuleOptionsError('serverInfo', 'needs a non-empty "name" and "version"');
  }
  if (options.instructions !== undefined && typeof options.instructions !== 'string') {
    throw new InvalidModuleOptionsError('instructions', 'must be a string');
  }
  return {
    serverInfo,
    instructions: options.instructions,
    cacheHints: resolveCacheHints(options.cacheHints),
  };
}

function resolveCacheHints(
  hints: Partial<Record<string, CacheHint>> | undefined,
): Record<McpCacheableMethod, CacheHint> {
  const resolved = {} as Record<McpCacheableMethod, CacheHint>;
  for (const method of Object.keys(hints ?? {})) {
    if (!CACHEABLE.includes(method as McpCacheableMethod)) {
      throw new InvalidModuleOptionsError(
        `cacheHints.${method}`,
        `is not a cacheable method (${CACHEABLE.join(', ')})`,
      );
    }
  }
  for (const method of CACHEABLE) {
    const hint = hints?.[method] ?? { ttlMs: 0, cacheScope: 'private' as const };
    if (!Number.isSafeInteger(hint.ttlMs) || (hint.ttlMs ?? 0) < 0) {
      throw new InvalidModuleOptionsError(`cacheHints.${method}.ttlMs`, 'must be an integer >= 0');
    }
    if (hint.cacheScope !== 'public' && hint.cacheScope !== 'private') {
      throw new InvalidModuleOptionsError(
        `cacheHints.${method}.cacheScope`,
        'must be "public" or "private"',
      );
    }
    resolved[method] = hint;
  }
  return resolved;
}
