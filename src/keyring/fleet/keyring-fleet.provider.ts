import type { Provider } from '@nestjs/common';
import { McpRedisConnection } from '../../redis/mcp-redis.connection';
import { KeyringManager } from '../keyring-manager.service';
import { KEYRING_OPTIONS, type KeyringOptions } from '../keyring.options';
import { KeyringRecordIntegrity } from '../record-integrity';
import { withFleetOutagesAsKeyringErrors } from './fleet-outages';
import { RedisKeyringFleet } from './redis-keyring-fleet';

/** Injection token of the fleet rotation (unset without the `redis` option). @internal */
export const KEYRING_FLEET = Symbol('KeyringFleet');

/**
 * With the `redis` option, `KeyringManager.stage`, `activate` and `remove` rotate the whole fleet
 * ({@link RedisKeyringFleet}); without it they change this instance only.
 * @internal
 */
export const KeyringFleetProvider: Provider = {
  provide: KEYRING_FLEET,
  useFactory: (
    keyring: KeyringManager,
    integrity: KeyringRecordIntegrity,
    redis: McpRedisConnection,
    options: KeyringOptions,
  ): RedisKeyringFleet | undefined => {
    if (!redis.configured || !options.fleet) return undefined;
    // The fleet's records are tagged under the keyring: it needs a key, as the Redis stores do.
    integrity.ensureKey();
    const fleet = new RedisKeyringFleet(keyring, integrity, redis, options.fleet);
    // Redis away is a KeyringError with retryAfterMs, never Redis's words.
    keyring.attachFleet(withFleetOutagesAsKeyringErrors(fleet));
    return fleet;
  },
  inject: [KeyringManager, KeyringRecordIntegrity, McpRedisConnection, KEYRING_OPTIONS],
};
