import { KeyringManager } from '../keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../keyring/record-integrity';
import { portProvider } from '../options/port.provider';
import { McpRedisConnection } from '../redis/mcp-redis.connection';
import { AesGcmRequestStateProtector } from './sealing/aes-gcm-request-state.protector';
import {
  REQUEST_STATE_LIMITS,
  type ResolvedRequestStateOptions,
} from './sealing/request-state-limits';
import {
  REQUEST_STATE_PROTECTOR_PORT,
  type RequestStateProtector,
} from './sealing/request-state-protector.interface';
import { MemoryStateHandleRepository } from './stores/handles/memory-state-handle.repository';
import { RedisStateHandleRepository } from './stores/handles/redis-state-handle.repository';
import { STATE_HANDLE_REPOSITORY_PORT } from './stores/handles/state-handle-repository.interface';
import type { StateHandleRepository } from './stores/handles/state-handle-repository.interface';
import { CONSUMED_STATE_STORE_PORT } from './stores/one-time/consumed-state-store.interface';
import type { ConsumedStateStore } from './stores/one-time/consumed-state-store.interface';
import { MemoryConsumedStateStore } from './stores/one-time/memory-consumed-state.store';
import { RedisConsumedStateStore } from './stores/one-time/redis-consumed-state.store';

/** The request-state ports an application set in the `requestState` options. @internal */
export interface RequestStatePortOptions {
  readonly protector: RequestStateProtector | undefined;
  readonly consumedStateStore: ConsumedStateStore | undefined;
  readonly stateHandleRepository: StateHandleRepository | undefined;
}

/** Injection token of the {@link RequestStatePortOptions}. @internal */
export const REQUEST_STATE_PORT_OPTIONS = Symbol('RequestStatePortOptions');

/** A store's fallback: made from the limits and the Redis connection (the ports' options aside). */
function byLimits<T>(
  make: (limits: ResolvedRequestStateOptions, redis: McpRedisConnection) => T,
): (
  options: RequestStatePortOptions,
  limits: ResolvedRequestStateOptions,
  redis: McpRedisConnection,
) => T {
  return (_, limits, redis) => make(limits, redis);
}

/**
 * The request-state ports as providers: the protector (AES-256-GCM over the keyring unless the
 * application brings its own), the single-use store and the handle repository (Redis when the
 * `redis` option is set, else memory; a Redis store keeps its records tagged under the keyring).
 * @internal
 */
export const REQUEST_STATE_PORT_PROVIDERS = [
  portProvider(REQUEST_STATE_PROTECTOR_PORT, {
    inject: [REQUEST_STATE_PORT_OPTIONS, KeyringManager],
    fromOptions: (options: RequestStatePortOptions) => options.protector,
    fallback: (_: RequestStatePortOptions, keyring: KeyringManager) => {
      keyring.ensureActiveKey();
      return new AesGcmRequestStateProtector(keyring);
    },
  }),
  portProvider(CONSUMED_STATE_STORE_PORT, {
    inject: [REQUEST_STATE_PORT_OPTIONS, REQUEST_STATE_LIMITS, McpRedisConnection],
    fromOptions: (options: RequestStatePortOptions) => options.consumedStateStore,
    fallback: byLimits((limits, redis) => {
      const capacity = {
        maxEntries: limits.maxConsumedStates,
        maxEntriesPerOwner: limits.maxConsumedStatesPerCaller,
      };
      return redis.configured
        ? new RedisConsumedStateStore(redis.client, {
            keyPrefix: redis.prefix,
            commandTimeoutMs: redis.commandTimeoutMs,
            ...(redis.waitForReplicas && { waitForReplicas: redis.waitForReplicas }),
            ...capacity,
          })
        : new MemoryConsumedStateStore(capacity);
    }),
  }),
  portProvider(STATE_HANDLE_REPOSITORY_PORT, {
    inject: [
      REQUEST_STATE_PORT_OPTIONS,
      REQUEST_STATE_LIMITS,
      McpRedisConnection,
      KeyringRecordIntegrity,
    ],
    fromOptions: (options: RequestStatePortOptions) => options.stateHandleRepository,
    fallback: byLimits((limits, redis) => {
      const capacity = {
        maxEntries: limits.maxStateHandles,
        maxEntriesPerOwner: limits.maxStateHandlesPerCaller,
        maxBytes: limits.maxStateHandleBytes,
      };
      return redis.configured
        ? new RedisStateHandleRepository(redis.client, {
            keyPrefix: redis.key('handle', ''),
            commandTimeoutMs: redis.commandTimeoutMs,
            ...capacity,
          })
        : new MemoryStateHandleRepository(capacity);
    }),
    adopt: (
      repository: StateHandleRepository,
      _: RequestStatePortOptions,
      _limits: ResolvedRequestStateOptions,
      _redis: McpRedisConnection,
      integrity: KeyringRecordIntegrity,
    ) => {
      // A Redis repository, whoever made it, keeps its records tagged under the keyring.
      if (repository instanceof RedisStateHandleRepository) {
        integrity.ensureKey();
        repository.authenticateRecordsWith(integrity);
      }
    },
  }),
];
