/**
 * The part of an ioredis client (`Redis`, ioredis 5 or 6) the module's Redis stores
 * call, typed structurally so that this package's types do not require `ioredis`. Pass a real
 * ioredis client; the module uses it as such.
 *
 * @publicApi
 */
export interface McpRedisClient {
  /** ioredis connection status; commands are sent only while it is `ready` (or `wait`, lazily connecting). */
  readonly status: string;
  set(
    key: string,
    value: string,
    millisecondsToken: 'PX',
    milliseconds: number,
    nx: 'NX',
  ): Promise<'OK' | null>;
  /**
   * Runs a Lua script (ioredis has it): with it the Redis single-use store shares its capacity
   * fairly between callers; without it each state is still accepted once.
   */
  eval?(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}
