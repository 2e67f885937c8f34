import Redis from 'ioredis';
import { KeyringManager } from '../../../../src/keyring/keyring-manager.service';
import { KeyringRecordIntegrity } from '../../../../src/keyring/record-integrity';
import { RedisSessionStore } from '../../../../src/entry/redis';
import {
  describeSessionStoreContract,
  createTestSessionRecord,
} from '../../../../src/entry/testing';
import {
  closeRedisClient,
  startRedisServer,
  type RedisServerHandle,
} from '../../../utils/redis-server';

let redis: RedisServerHandle;
let client: Redis;
let prefixes = 0;
const ROOMY = { maxSessions: 100, maxPerPartition: 100 };
const integrity = new KeyringRecordIntegrity(
  new KeyringManager({ keyring: { active: 'k1', keys: { k1: Buffer.alloc(32, 7) } } }),
);

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
});

afterAll(async () => {
  await closeRedisClient(client);
  await redis?.close();
});

// Each case on a prefix of its own, so `maxSessions` counts only its sessions.
describeSessionStoreContract(
  'RedisSessionStore',
  () => new RedisSessionStore(client, { keyPrefix: `contract-${prefixes++}:`, integrity }),
);

describe('RedisSessionStore', () => {
  it('keeps no session id in the key space, and expires each key with its session', async () => {
    const store = new RedisSessionStore(client, { keyPrefix: 'space:', integrity });
    const session = createTestSessionRecord(5_000);
    await store.create(session, ROOMY);
    const keys = await client.keys('space:*');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).not.toContain(session.sessionId);
      const ttl = Number(await client.pttl(key));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
    }
    // The record carries its tag under the keyring.
    const record = keys.find((key) => !/all|by-caller/.test(key)) as string;
    expect(await client.hget(record, 't')).toMatch(/^[\w-]+\.[\w-]{43}$/);
  });

  it('serves a session created through one connection to another (two instances of a fleet)', async () => {
    const other = new Redis(redis.port, '127.0.0.1');
    try {
      const session = createTestSessionRecord();
      await new RedisSessionStore(client, { keyPrefix: 'fleet:', integrity }).create(
        session,
        ROOMY,
      );
      const elsewhere = new RedisSessionStore(other, { keyPrefix: 'fleet:', integrity });
      expect(await elsewhere.get(session.sessionId)).toEqual(session);
    } finally {
      await closeRedisClient(other);
    }
  });

  it('treats a record edited in Redis, or written without the keyring, as no session', async () => {
    const store = new RedisSessionStore(client, { keyPrefix: 'edit:', integrity });
    const session = createTestSessionRecord();
    await store.create(session, ROOMY);
    const [key] = (await client.keys('edit:*')).filter((each) => !/all|by-caller/.test(each));
    const data = (await client.hget(key, 'd')) as string;
    await client.hset(key, 'd', data.replace('user:alice', 'user:mallory'));
    expect(await store.get(session.sessionId)).toBeUndefined();

    const unkeyed = createTestSessionRecord();
    await new RedisSessionStore(client, { keyPrefix: 'edit:' }).create(unkeyed, ROOMY);
    expect(await store.get(unkeyed.sessionId)).toBeUndefined();
  });
});
