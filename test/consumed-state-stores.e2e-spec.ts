import { Redis, type RedisOptions } from 'ioredis';
import {
  ConsumedStateStoreError,
  MemoryConsumedStateStore,
  type ConsumedStateStore,
} from '../src/index';
import { RedisConsumedStateStore } from '../src/redis/index';
import {
  describeConsumedStateStoreContract,
  type ConsumedStateStoreSubject,
} from './utils/consumed-state-store.contract';
import { startRedisServer, type RedisServerHandle } from './utils/redis-server';

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const LATER = () => Date.now() + 60_000;

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

async function connected(client: Redis): Promise<Redis> {
  await until(() => client.status === 'ready', 'the Redis client is ready');
  return client;
}

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

/** Quits a connected client (so its socket is closed before Jest ends), drops any other. */
async function closeClient(client: Redis): Promise<void> {
  if (client.status === 'ready') await client.quit();
  else if (client.status !== 'end') client.disconnect();
}

afterAll(async () => {
  await Promise.all(clients.map(closeClient));
  await server?.close();
});

/** A client as an application might configure it; closed with the file. */
function appClient(options: RedisOptions = {}): Redis {
  const client = new Redis(server.url, options);
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

describeConsumedStateStoreContract('MemoryConsumedStateStore', async () => {
  const capacity = 200;
  const store = new MemoryConsumedStateStore({ maxEntries: capacity, sweepIntervalMs: 0 });
  return {
    store,
    breakIt: async () => {
      const fillerExpiry = Date.now() + 300;
      for (let filler = 0; store.size < capacity; filler++)
        await store.consume(`filler-${filler}`, fillerExpiry);
    },
    repair: () => sleep(350),
    close: async () => store.close(),
  };
});

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
      const client = await connected(appClient(options));
      return {
        store: new RedisConsumedStateStore(client, { commandTimeoutMs: 300 }),
        breakIt: () => server.stop(),
        repair: async () => {
          await server.start();
          await connected(client);
        },
        close: () => closeClient(client),
      };
    },
  );
}

describe('RedisConsumedStateStore on a real Redis', () => {
  let admin: Redis;
  let client: Redis;

  beforeAll(async () => {
    admin = await connected(appClient());
    client = await connected(appClient());
  });

  it('records one key, <prefix>consumed:<id> = 1, expiring with the state', async () => {
    const store = new RedisConsumedStateStore(client);
    expect(await store.consume('layout', Date.now() + 30_000)).toBe(true);
    expect(await admin.get('nestjs-mcp:consumed:layout')).toBe('1');
    const ttl = await admin.pttl('nestjs-mcp:consumed:layout');
    expect(ttl).toBeGreaterThan(28_000);
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
    expect(await store.consume('skewed', hourBehind() + 30_000)).toBe(true);
    expect(await admin.pttl('nestjs-mcp:consumed:skewed')).toBeGreaterThan(28_000);
    expect(await store.consume('skewed', hourBehind() + 30_000)).toBe(false);
  });

  it('refuses with "timeout" after commandTimeoutMs when Redis does not answer; the late SET still spends the state', async () => {
    const store = new RedisConsumedStateStore(client, { commandTimeoutMs: 200 });
    await admin.call('CLIENT', 'PAUSE', '1000', 'WRITE');
    const started = Date.now();
    expect((await rejection(store.consume('paused', LATER()))).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(600);
    await admin.call('CLIENT', 'UNPAUSE');
    await sleep(50);
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
