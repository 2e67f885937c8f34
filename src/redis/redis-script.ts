import { createHash } from 'node:crypto';
import type { McpRedisClient } from './mcp-redis-client';

/** A Lua script and its SHA-1, for EVALSHA. @internal */
export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

/** `source` as a {@link RedisScript}. @internal */
export function redisScript(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/**
 * Runs `script` by its SHA-1 (EVALSHA: its text is not sent on every call), and by its text once
 * when Redis does not know it yet (restarted, flushed) or the client has no EVALSHA.
 * @internal
 */
export function runRedisScript(
  client: Pick<McpRedisClient, 'eval'> & Partial<Pick<McpRedisClient, 'evalsha'>>,
  script: RedisScript,
  numKeys: number,
  ...args: (string | number)[]
): Promise<unknown> {
  if (!client.evalsha) return client.eval(script.source, numKeys, ...args);
  return client.evalsha(script.sha1, numKeys, ...args).catch((error: unknown) => {
    if (error instanceof Error && error.message.startsWith('NOSCRIPT'))
      return client.eval(script.source, numKeys, ...args);
    throw error;
  });
}
