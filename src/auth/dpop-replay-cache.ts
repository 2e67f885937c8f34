import { portProvider } from '../options/port.provider';
import { AUTH_OPTIONS, type AuthOptions } from './auth.options';
import { port } from '../options/port';
import { McpRedisConnection } from '../redis/mcp-redis.connection';
import type { ConsumedStateStore } from '../request-state/stores/one-time/consumed-state-store.interface';
import { MemoryConsumedStateStore } from '../request-state/stores/one-time/memory-consumed-state.store';
import { RedisConsumedStateStore } from '../request-state/stores/one-time/redis-consumed-state.store';

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
 * The DPoP replay cache port as a provider: the `replayCache` option, else a consumed-state store
 * of its own (keys under `<prefix>dpop:`, its own capacity), on Redis when the `redis` option is
 * set, else in memory. Unused without DPoP.
 * @internal
 */
export const DPOP_REPLAY_CACHE_PROVIDER = portProvider(DPOP_REPLAY_CACHE_PORT, {
  inject: [AUTH_OPTIONS, McpRedisConnection],
  fromOptions: (auth: AuthOptions) => auth.resourceServer?.dpop?.replayCache,
  fallback: (auth: AuthOptions, redis: McpRedisConnection) => {
    const dpop = auth.resourceServer?.dpop;
    const capacity = {
      maxEntries: dpop?.maxReplayEntries ?? 1,
      maxEntriesPerOwner: dpop?.maxReplayEntriesPerSubject ?? 1,
    };
    return redis.configured && dpop && dpop.mode !== 'off'
      ? new RedisConsumedStateStore(redis.client, {
          keyPrefix: redis.key('dpop', ''),
          commandTimeoutMs: redis.commandTimeoutMs,
          ...(redis.waitForReplicas && { waitForReplicas: redis.waitForReplicas }),
          ...capacity,
        })
      : new MemoryConsumedStateStore(capacity);
  },
});
