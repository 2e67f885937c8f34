import type { PortChoice } from '../ports/mcp-ports.service';
import { port } from '../ports/port';
import type { McpRedisConnection } from '../redis/mcp-redis.connection';
import type { ConsumedStateStore } from '../stores/one-time/consumed-state-store.interface';
import { MemoryConsumedStateStore } from '../stores/one-time/memory-consumed-state.store';
import { RedisConsumedStateStore } from '../stores/one-time/redis-consumed-state.store';
import type { DpopOptions } from './dpop.options';

/**
 * DI token of the store each DPoP proof's `jti` is recorded in, so that a proof is accepted once:
 * a {@link ConsumedStateStore} of its own (its own keys and capacity, apart from single-use
 * request states). Filled from `auth.resourceServer.dpop.replayCache`, else Redis when the
 * `redis` option is set (one record for the fleet), else memory.
 * @internal
 */
export const DpopReplayCache = Symbol('DpopReplayCache');

/** The DPoP replay cache port. @internal */
export const DPOP_REPLAY_CACHE_PORT = port<ConsumedStateStore>(
  DpopReplayCache,
  'auth.resourceServer.dpop.replayCache',
);

/**
 * How the DPoP replay cache is filled when the resource server verifies proofs: the
 * `replayCache` option, else a consumed-state store of its own (keys under `<prefix>dpop:`, its
 * own capacity), on Redis when the `redis` option is set, else in memory. None without DPoP.
 * @internal
 */
export function dpopReplayCacheChoice(
  dpop: DpopOptions | undefined,
  redis: McpRedisConnection,
): PortChoice<unknown>[] {
  if (!dpop || dpop.mode === 'off') return [];
  const capacity = {
    maxEntries: dpop.maxReplayEntries,
    maxEntriesPerOwner: dpop.maxReplayEntriesPerSubject,
  };
  const choice: PortChoice<ConsumedStateStore> = {
    port: DPOP_REPLAY_CACHE_PORT,
    fromOptions: dpop.replayCache,
    fallback: () =>
      redis.configured
        ? new RedisConsumedStateStore(redis.client, {
            keyPrefix: redis.key('dpop', ''),
            commandTimeoutMs: redis.commandTimeoutMs,
            ...(redis.waitForReplicas && { waitForReplicas: redis.waitForReplicas }),
            ...capacity,
          })
        : new MemoryConsumedStateStore(capacity),
  };
  return [choice as PortChoice<unknown>];
}
