/**
 * What the HTTP endpoint admits and how it reads bodies and streams: `McpModuleOptions.http`.
 * @publicApi
 */
export interface McpHttpOptions {
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
  /** Time a request body may take to arrive, in ms; slower bodies get HTTP 408. Default 10,000. */
  requestBodyTimeoutMs?: number;
  /**
   * Memory that large request bodies may hold at once, counting each body's bytes beyond its first
   * 64 KiB until its response ends; a body that would exceed it gets HTTP 503 with `Retry-After`.
   * Small requests are never refused by it. Default 33,554,432 (32 MiB).
   */
  maxInFlightRequestBytes?: number;
  /**
   * Bounds for JSON request bodies, checked in one cheap pass before anything is parsed, so no
   * single request can hold the event loop. Bodies over a bound get HTTP 413 (nesting: 400).
   */
  json?: {
    /** Deepest object/array nesting accepted. Default 64. */
    maxDepth?: number;
    /** Longest number token, in characters. Default 1,024. */
    maxNumberLength?: number;
    /** Largest absolute exponent of a number token. Default 10,000. */
    maxExponent?: number;
    /** JSON values and keys in a body. Default 20,000. */
    maxNodes?: number;
    /** Members of any one object (tool arguments, form answers). Default 1,000. */
    maxObjectKeys?: number;
    /** Items of any one array. Default 10,000. */
    maxArrayLength?: number;
    /** Characters of any one string or key. Default 1,048,576. */
    maxStringLength?: number;
  };
  /** SSE keep-alive interval for streaming responses, in ms. Default 15,000; 0 disables. */
  keepAliveMs?: number;
  /**
   * Serves `tools/call`, `prompts/get`, `resources/read` and the list methods of complete
   * 2026-07-28 requests directly, with the same answers as the official SDK's path but without an
   * SDK server per request; everything else (discovery, listen streams, requests asking for progress
   * or logs, 2025-era traffic, anything unusual) still goes through the SDK. Default `true`.
   */
  fastPath?: boolean;
}
