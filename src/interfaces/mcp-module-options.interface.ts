import type { CacheHint } from '@modelcontextprotocol/server';

/** Which MCP list or read results a cache hint applies to. */
export type McpCacheableMethod =
  | 'server/discover'
  | 'tools/list'
  | 'prompts/list'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';

/**
 * Options for `McpModule.forRoot()` / `forRootAsync()`.
 *
 * @publicApi
 */
export interface McpModuleOptions {
  /** HTTP path of the MCP endpoint. Default `/mcp`. */
  endpoint?: string;
  /** Name and version the server reports in `server/discover`. Default `{ name: 'nestjs-mcp', version: <package version> }`. */
  serverInfo?: { name: string; version: string; title?: string };
  /** Free-text instructions advertised to clients in `server/discover`. */
  instructions?: string;
  /**
   * Extra `Host` header values accepted besides `localhost`, `127.0.0.1` and `[::1]` (any port).
   * Entries are host names (`api.example.com`, any port) or `host:port`. Default none.
   */
  allowedHosts?: string[];
  /**
   * Extra `Origin` values accepted besides `http(s)://localhost|127.0.0.1|[::1]` on any port,
   * e.g. `https://app.example.com`. Requests without an `Origin` header are accepted. Default none.
   */
  allowedOrigins?: string[];
  /** Turns DNS-rebinding protection off. Only for servers behind a proxy that validates Host itself. Default `false`. */
  disableDnsRebindingProtection?: boolean;
  /** Largest accepted request body in bytes. Default 4 MiB (4,194,304). */
  maxRequestBodyBytes?: number;
  /** Bounds for JSON parsing of request bodies. */
  json?: {
    /** Deepest object/array nesting accepted. Default 64. */
    maxDepth?: number;
    /** Longest number token, in characters. Default 1,024. */
    maxNumberLength?: number;
    /** Largest absolute exponent of a number token. Default 10,000. */
    maxExponent?: number;
  };
  /** Cache hints (`ttlMs`, `cacheScope`) for cacheable results. Default `{ ttlMs: 0, cacheScope: 'private' }` everywhere. */
  cacheHints?: Partial<Record<McpCacheableMethod, CacheHint>>;
  /** SSE keep-alive interval for streaming responses, in ms. Default 15,000; 0 disables. */
  keepAliveMs?: number;
}
