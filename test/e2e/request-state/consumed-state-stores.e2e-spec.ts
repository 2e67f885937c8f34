import { Redis, type RedisOptions } from 'ioredis';
import {
  ConsumedStateStoreError,
  MemoryConsumedStateStore,
  type ConsumedStateStore,
} from '../../../src/entry/stores';
import { RedisConsumedStateStore } from '../../../src/entry/redis';
import { until } from '../../utils/wait';
import { describeConsumedStateStoreContract } from '../../../src/entry/testing';

type ConsumedStateStoreSubject = Awaited<
  ReturnType<Parameters<typeof describeConsumedStateStoreContract>[1]>
>;
import {
  closeRedisClient,
  redisReady,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';

const LATER = () => Date.now() + 60_000;

async function rejection(promise: Promise<unknown>): Promise<ConsumedStateStoreError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConsumedStateStoreError);
  return error as ConsumedStateStoreError;
}

let server: RedisServerHandle;
const clients: Redis[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  await Promise.all(clients.map((client) => closeRedisClient(client)));
  await server?.close();
});

/** A client as an application might configure it; closed with the file. */
function appClient(options: RedisOptions = {}): Redis {
  const client = new Redis(server.url, options);
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

describeConsumedStateStoreContract(
  'MemoryConsumedStateStore',
  async () => {
    const capacity = 200;
    // The store's clock runs ahead by `skew` once repaired: the fillers expire then, and only then,
    // however long the test between takes (the contract's own expiries are a minute away).
    let skew = 0;
    const store = new MemoryConsumedStateStore({
      maxEntries: capacity,
      sweepIntervalMs: 0,
      now: () => Date.now() + skew,
    });
    const FILLER_LIFETIME_MS = 30_000;
    return {
      store,
      breakIt: async () => {
        const fillerExpiry = Date.now() + FILLER_LIFETIME_MS;
        // Each filler from an owner of its own: no share stops them short of full.
        for (let filler = 0; store.size < capacity; filler++)
          await store.consume(`filler-${filler}`, fillerExpiry, `owner-${filler}`);
      },
      repair: async () => {
        skew = FILLER_LIFETIME_MS + 1_000;
      },
      close: async () => store.close(),
    };
  },
  async (capacity) => {
    const store = new MemoryConsumedStateStore({ ...capacity, sweepIntervalMs: 0 });
    return { store, close: async () => store.close() };
  },
);

let boundedPrefixes = 0;
const boundedRedisStore = async (capacity: { maxEntries: number; maxEntriesPerOwner: number }) => {
  const client = await redisReady(appClient());
  const store = new RedisConsumedStateStore(client, {
    keyPrefix: `bounded-${++boundedPrefixes}:`,
    ...capacity,
  });
  return { store, close: () => closeRedisClient(client) };
};

const CLIENT_CONFIGURATIONS: [string, RedisOptions][] = [
  ['ioredis defaults', {}],
  // The worst an app's client can do: queue commands offline forever, with no command timeout.
  [
    'a client that queues commands forever',
    { maxRetriesPerRequest: null, enableOfflineQueue: true },
  ],
];

for (const [label, options] of CLIENT_CONFIGURATIONS) {
  describeConsumedStateStoreContract(
    `RedisConsumedStateStore (${label})`,
    async (): Promise<ConsumedStateStoreSubject> => {
      const client = await redisReady(appClient(options));
      return {
        store: new RedisConsumedStateStore(client, { commandTimeoutMs: 300 }),
        // Broken once the client knows: a command written in the instant the server went away
        // is resent by ioredis on reconnect, and nobody can know whether it ran — not the case
        // the contract is about (a store that cannot record refuses, and records nothing).
        breakIt: async () => {
          await server.stop();
          await until(() => client.status !== 'ready', 'the client to notice the server is gone');
        },
        repair: async () => {
          await server.start();
          await redisReady(client);
        },
        close: () => closeRedisClient(client),
      };
    },
    // The fair-share rules once: they do not depend on how the client queues.
    label === CLIENT_CONFIGURATIONS[0][0] ? boundedRedisStore : undefined,
  );
}

describe('RedisConsumedStateStore on a real Redis', () => {
  let admin: Redis;
  let client: Redis;

  beforeAll(async () => {
    admin = await redisReady(appClient());
    client = await redisReady(appClient());
  });

  it('records one key, <prefix>consumed:<id> = 1, expiring with the state', async () => {
    const store = new RedisConsumedStateStore(client);
    const issued = Date.now();
    expect(await store.consume('layout', issued + 30_000)).toBe(true);
    // Claimed, then settled right after the claim's reply (a write the caller does not wait for).
    await until(() => admin.get('nestjs-mcp:consumed:layout'), {
      done: (value) => value === '1',
      what: 'the claim to be settled',
    });
    const ttl = await admin.pttl('nestjs-mcp:consumed:layout');
    // The state's time left, less what has passed since (and a millisecond of rounding).
    expect(ttl).toBeGreaterThanOrEqual(30_000 - (Date.now() - issued) - 1);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('keeps apps with different key prefixes apart on one Redis', async () => {
    const billing = new RedisConsumedStateStore(client, { keyPrefix: 'billing:' });
    const support = new RedisConsumedStateStore(client, { keyPrefix: 'support:' });
    expect(await billing.consume('shared-id', LATER())).toBe(true);
    expect(await support.consume('shared-id', LATER())).toBe(true);
    expect(await billing.consume('shared-id', LATER())).toBe(false);
    expect(await admin.exists('billing:consumed:shared-id', 'support:consumed:shared-id')).toBe(2);
  });

  it('sets the expiry as time left, so a Redis clock that disagrees with the app does not shorten it', async () => {
    // The app's clock is an hour behind Redis's: an absolute expiry would already have passed there.
    const hourBehind = () => Date.now() - 3_600_000;
    const store = new RedisConsumedStateStore(client, { now: hourBehind });
    const issued = Date.now();
    expect(await store.consume('skewed', hourBehind() + 30_000)).toBe(true);
    expect(await admin.pttl('nestjs-mcp:consumed:skewed')).toBeGreaterThanOrEqual(
      30_000 - (Date.now() - issued) - 1,
    );
    expect(await store.consume('skewed', hourBehind() + 30_000)).toBe(false);
  });

  it('refuses with "timeout" after commandTimeoutMs when Redis does not answer; the late claim then changes nothing', async () => {
    const store = new RedisConsumedStateStore(client, { commandTimeoutMs: 200 });
    expect(await store.consume('warm-up', LATER())).toBe(true);
    // Paused far longer than the timeout, and unpaused by the test: refused while Redis still
    // holds the claim (the key is not written yet), the store did not wait for Redis.
    await admin.call('CLIENT', 'PAUSE', '30000', 'WRITE');
    try {
      expect((await rejection(store.consume('paused', LATER()))).reason).toBe('timeout');
      expect(await admin.exists('nestjs-mcp:consumed:paused')).toBe(0);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
    }
    // The claim runs once Redis takes writes again, past its deadline: it writes nothing, so the
    // client told to retry is not refused as a replay.
    expect(await store.consume('paused', LATER())).toBe(true);
    expect(await store.consume('paused', LATER())).toBe(false);
  });

  it('refuses with the error code when Redis rejects the SET (out of memory)', async () => {
    const store = new RedisConsumedStateStore(client);
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await admin.config('SET', 'maxmemory', '1');
    try {
      expect((await rejection(store.consume('oom', LATER()))).reason).toBe('rejected OOM');
    } finally {
      await admin.config('SET', 'maxmemory', '0');
    }
    expect(await store.consume('oom', LATER())).toBe(true);
  });

  it('refuses ids that are empty or over 512 characters, and a non-finite expiry', async () => {
    const store: ConsumedStateStore = new RedisConsumedStateStore(client);
    expect((await rejection(store.consume('', LATER()))).reason).toBe('invalid_id');
    expect((await rejection(store.consume('x'.repeat(513), LATER()))).reason).toBe('invalid_id');
    expect((await rejection(store.consume('forever', Number.POSITIVE_INFINITY))).reason).toBe(
      'invalid_expiry',
    );
    expect(await store.consume('x'.repeat(512), LATER())).toBe(true);
  });
});
