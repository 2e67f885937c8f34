import { MemorySessionStore } from './memory-session.store';
import { RedisSessionStore } from './redis-session.store';
import { SESSION_STORE_PORT, type SessionStore } from './session-store.interface';
import { SESSION_OPTIONS, type SessionOptions } from '../session.options';
import { KeyringRecordIntegrity, McpRedisConnection, portProvider } from '../../../extension-api';

/**
 * The session store port as a provider: the `sessions.store` option, an application's provider of
 * `SessionStore`, or the module's own (Redis when the `redis` option is set, else memory). Every
 * record of a Redis store is tagged under the keyring: an edited or foreign one is not a session.
 * @internal
 */
export const SESSION_STORE_PROVIDER = portProvider(SESSION_STORE_PORT, {
  inject: [SESSION_OPTIONS, McpRedisConnection, KeyringRecordIntegrity],
  fromOptions: (options: SessionOptions) => options.store,
  fallback: (_: SessionOptions, redis: McpRedisConnection, integrity: KeyringRecordIntegrity) => {
    if (!redis.configured) return new MemorySessionStore();
    integrity.ensureKey();
    return new RedisSessionStore(redis.bounded, {
      keyPrefix: redis.key('session', ''),
      integrity,
      commandTimeoutMs: redis.commandTimeoutMs,
    });
  },
  adopt: (
    store: SessionStore,
    _: SessionOptions,
    _redis: McpRedisConnection,
    integrity: KeyringRecordIntegrity,
  ) => {
    // A Redis store, whoever made it, keeps its records tagged under the keyring.
    if (store instanceof RedisSessionStore) {
      integrity.ensureKey();
      store.authenticateRecordsWith(integrity);
    }
  },
});
