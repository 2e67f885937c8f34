import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import {
  MemoryStateHandleRepository,
  StateHandleRepositoryError,
  type StateHandleRecord,
} from '../../../src/entry/stores';
import { RedisStateHandleRepository } from '../../../src/entry/redis';
import { describeStateHandleRepositoryContract } from '../../../src/entry/testing';
import {
  closeRedisClient,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';
import { until } from '../../utils/wait';

const handle = (): string => randomBytes(32).toString('base64url');
const record = (): StateHandleRecord => ({
  binding: 'b',
  data: '{"x":1}',
  expiresAt: Date.now() + 60_000,
  round: 1,
});

describeStateHandleRepositoryContract(
  'MemoryStateHandleRepository',
  async () => {
    const repository = new MemoryStateHandleRepository();
    return { repository, close: async () => repository.close() };
  },
  async (capacity) => {
    const repository = new MemoryStateHandleRepository(capacity);
    return { repository, close: async () => repository.close() };
  },
);

describe('RedisStateHandleRepository', () => {
  let server: RedisServerHandle;
  const clients: Redis[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) await closeRedisClient(client);
    await server?.close();
  });

  function connect(): Redis {
    const client = new Redis(server.url, { maxRetriesPerRequest: 2 });
    clients.push(client);
    return client;
  }

  describe('the StateHandleRepository contract', () => {
    let prefixes = 0;
    describeStateHandleRepositoryContract(
      'RedisStateHandleRepository',
      async () => {
        const client = connect();
        // A fresh prefix per test: nothing one test stores can answer another.
        const repository = new RedisStateHandleRepository(client, {
          keyPrefix: `contract-${++prefixes}:`,
        });
        return { repository, close: async () => void (await client.quit()) };
      },
      async (capacity) => {
        const client = connect();
        const repository = new RedisStateHandleRepository(client, {
          keyPrefix: `bounded-${++prefixes}:`,
          ...capacity,
        });
        return { repository, close: async () => void (await client.quit()) };
      },
    );
  });

  it('keeps each record under its prefix, with the flow expiry as the key expiry', async () => {
    const client = connect();
    const repository = new RedisStateHandleRepository(client, { keyPrefix: 'orders:handle:' });
    const first = handle();
    const stored = record();
    await repository.put(first, stored);
    expect(await client.hgetall(`orders:handle:${first}`)).toEqual({
      b: 'b',
      d: '{"x":1}',
      e: String(stored.expiresAt),
      r: '1',
      // The owner (none here) and the keyring's tag (none outside the module).
      o: '',
      t: '',
    });
    expect(await client.pexpiretime(`orders:handle:${first}`)).toBe(stored.expiresAt);
    const other = new RedisStateHandleRepository(client, { keyPrefix: 'billing:handle:' });
    expect(await other.redeem(first, 'b', handle())).toBeUndefined();
    const second = handle();
    expect(await repository.redeem(first, 'b', second)).toEqual(stored);
    expect(await client.exists(`orders:handle:${first}`)).toBe(0);
    expect(await client.pexpiretime(`orders:handle:${second}`)).toBe(stored.expiresAt);
  });

  it('fails closed while Redis is down (StateHandleRepositoryError, within the timeout) and recovers when it is back', async () => {
    const client = connect();
    const repository = new RedisStateHandleRepository(client, { commandTimeoutMs: 300 });
    const first = handle();
    await repository.put(first, record());
    await server.stop();
    // Settled while Redis is down: a repository that waited for it would hang until the test's
    // timeout, since it comes back only after this.
    const failure = await repository.redeem(first, 'b', handle()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StateHandleRepositoryError);
    expect((failure as StateHandleRepositoryError).reason).toMatch(/^(timeout|unavailable)/);
    await expect(repository.put(handle(), record())).rejects.toBeInstanceOf(
      StateHandleRepositoryError,
    );
    await server.start();
    // The restarted server is empty and knows no script: the repository loads it again.
    const second = handle();
    const { recovered } = await until(
      async (): Promise<{ recovered: StateHandleRecord | undefined } | undefined> => {
        try {
          await repository.put(second, record());
          return { recovered: await repository.redeem(second, 'b', handle()) };
        } catch {
          return undefined;
        }
      },
      { what: 'the repository to work again', everyMs: 100 },
    );
    expect(recovered).toMatchObject({ binding: 'b', data: '{"x":1}' });
  });

  it('refuses an ill-made configuration', () => {
    const client = new Redis(server.url, { lazyConnect: true });
    expect(() => new RedisStateHandleRepository(client, { commandTimeoutMs: 0 })).toThrow(
      RangeError,
    );
    expect(() => new RedisStateHandleRepository({} as unknown as Redis)).toThrow(TypeError);
  });
});
