import type { CacheHint } from '@modelcontextprotocol/server';
import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { booleanOption } from '../../options/option-checks';

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

/** What the server calls itself (the MCP `Implementation`). @internal */
export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly websiteUrl?: string;
}

/** What the server says of itself, and the cache hints it gives. @internal */
export interface ServerOptions {
  readonly serverInfo: ServerInfo;
  readonly instructions: string | undefined;
  readonly cacheHints: Readonly<Record<McpCacheableMethod, CacheHint>>;
  /** Whether the experimental server card (SEP-2127) is served at `<endpoint>/server-card`. */
  readonly serverCard: boolean;
}

/** The card's `name`: reverse-DNS, one slash (SEP-2127 draft schema, v1). */
const CARD_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

function optionalText(option: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || value === ''))
    throw new InvalidModuleOptionsError(option, 'must be a non-empty string');
}

/**
 * The server card repeats nothing: its name, version, title and description are `serverInfo`'s,
 * so they must be what the draft's card allows (startup fails naming the rule otherwise).
 */
function checkCardable(serverInfo: ServerInfo): void {
  const { name, version, title, description } = serverInfo;
  if (name.length < 3 || name.length > 200 || !CARD_NAME.test(name))
    throw new InvalidModuleOptionsError(
      'serverInfo.name',
      `must be a reverse-DNS name with one slash (e.g. "com.example/orders", at most 200 characters) for the server card (serverCard), got "${name}"`,
    );
  if (version.length > 255)
    throw new InvalidModuleOptionsError('serverInfo.version', 'must be at most 255 characters');
  if (description === undefined || description.length > 100)
    throw new InvalidModuleOptionsError(
      'serverInfo.description',
      'is required for the server card (serverCard): at most 100 characters',
    );
  if (title !== undefined && title.length > 100)
    throw new InvalidModuleOptionsError('serverInfo.title', 'must be at most 100 characters');
}

/** Injection token of the resolved {@link ServerOptions}. @internal */
export const SERVER_OPTIONS = Symbol('ServerOptions');

/** Fills the server defaults and checks each value, naming the first bad option. @internal */
export function resolveServerOptions(
  options: {
    serverInfo?: ServerInfo;
    instructions?: unknown;
    cacheHints?: Partial<Record<string, CacheHint>>;
    serverCard?: unknown;
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
  optionalText('serverInfo.title', serverInfo.title);
  optionalText('serverInfo.description', serverInfo.description);
  optionalText('serverInfo.websiteUrl', serverInfo.websiteUrl);
  if (options.instructions !== undefined && typeof options.instructions !== 'string') {
    throw new InvalidModuleOptionsError('instructions', 'must be a string');
  }
  const serverCard = booleanOption('serverCard', options.serverCard, false);
  if (serverCard) checkCardable(serverInfo);
  return {
    serverInfo,
    instructions: options.instructions,
    cacheHints: resolveCacheHints(options.cacheHints),
    serverCard,
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
