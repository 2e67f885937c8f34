/**
 * The part of an ioredis client (`Redis`, ioredis 5) the module's Redis adapters call, typed
 * structurally so that this package's types do not require `ioredis`. Pass a real ioredis client;
 * each adapter's constructor names the members it uses (`Pick<McpRedisClient, …>`), so a test
 * double needs only those.
 *
 * @publicApi
 */
export interface McpRedisClient {
  /** ioredis connection status; commands are sent only while it is `ready` (or `wait`, lazily connecting). */
  readonly status: string;
  /** `true` on an ioredis `Cluster`: the adapters then need hash-tagged key prefixes. */
  readonly isCluster?: boolean;
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  set(
    key: string,
    value: string,
    millisecondsToken: 'PX',
    milliseconds: number,
    nx: 'NX',
  ): Promise<'OK' | null>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  evalsha(sha1: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  /**
   * A new connection with the same options: `Redis#duplicate(override)` (`maxRetriesPerRequest:
   * null` for a blocking one) or `Cluster#duplicate(startupNodes, options)`.
   */
  duplicate(
    override?: { maxRetriesPerRequest?: number | null } | unknown[],
    clusterOptions?: object,
  ): McpRedisClient;
  subscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}
