import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { McpModule } from '../../../src/index';
import { ConsumedStateStoreError } from '../../../src/entry/stores';
import { RedisConsumedStateStore } from '../../../src/entry/redis';
import { HandlerRuns } from '../../fixtures/handler-runs';
import { CapturingLogger, newKeyring } from '../../fixtures/sample-app';
import {
  askToDelete,
  confirmDelete,
  OneTimeStateFixturesModule,
} from '../request-state/one-time-state.fixtures';
import { startTestServer, type TestServer } from '../../utils/bootstrap';
import {
  closeRedisClient,
  redisReady,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';
import { until } from '../../utils/wait';

const LATER = () => Date.now() + 60_000;
const ONE_REPLICA = { replicas: 1, timeoutMs: 2_000 };

/*
 * `waitForReplicas` on a real master and replica: a presentation is accepted only once a replica
 * has its record, so a failover to that replica cannot forget it.
 */
describe('single use acknowledged by a replica (waitForReplicas)', () => {
  let master: RedisServerHandle;
  let replica: RedisServerHandle;
  const clients: Redis[] = [];

  const connect = async (server: RedisServerHandle) => {
    const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    clients.push(client);
    return redisReady(client);
  };

  beforeEach(async () => {
    // A replica's first sync starts at once, not after Redis's default 5 s wait for more replicas.
    master = await startRedisServer({ args: () => ['--repl-diskless-sync-delay', '0'] });
    replica = await startRedisServer({
      args: () => ['--replicaof', '127.0.0.1', String(master.port)],
    });
    // In sync as the master sees it: only an online replica acknowledges a WAIT.
    const watcher = await connect(master);
    await until(
      async () => /slave0:.*state=online/.test(String(await watcher.info('replication'))),
      { what: 'the replica to be online' },
    );
  }, 30_000);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => closeRedisClient(client)));
    // SIGTERM would have a master wait for its replica to catch up (Redis's shutdown-timeout).
    await Promise.all([replica?.stop('SIGKILL'), master?.stop('SIGKILL')]);
    await replica?.close();
    await master?.close();
  });

  it('keeps every acknowledged presentation spent on the replica after the master is killed', async () => {
    const store = new RedisConsumedStateStore(await connect(master), {
      commandTimeoutMs: 3_000,
      waitForReplicas: ONE_REPLICA,
    });
    const ids = Array.from({ length: 50 }, (_, index) => `acked-${index}`);
    for (const id of ids) expect(await store.consume(id, LATER())).toBe(true);
    await master.stop('SIGKILL');
    // The replica takes over, as Sentinel or an operator would promote it.
    const promoted = await connect(replica);
    await promoted.call('REPLICAOF', 'NO', 'ONE');
    const afterFailover = new RedisConsumedStateStore(promoted, { commandTimeoutMs: 200 });
    for (const id of ids) {
      const answer = await afterFailover.consume(id, LATER()).catch((error: unknown) => error);
      // Spent; or, when the master died before the claim's settle reached the replica, still
      // claimed (its lease counts it spent later): told to retry, never accepted.
      if (answer !== false) {
        expect(answer).toBeInstanceOf(ConsumedStateStoreError);
        expect((answer as ConsumedStateStoreError).reason).toBe('in doubt');
      }
    }
  });

  it('refuses a presentation no replica acknowledged (retryable), and releases its claim: the method never ran, so a retry may be accepted', async () => {
    const store = new RedisConsumedStateStore(await connect(master), {
      commandTimeoutMs: 3_000,
      waitForReplicas: ONE_REPLICA,
    });
    await replica.stop();
    const refusal = await store.consume('unacked', LATER()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ConsumedStateStoreError);
    expect((refusal as ConsumedStateStoreError).reason).toBe('not replicated');
    // Released: a replica that got the claim and not its release holds it in doubt, then spent;
    // one that got neither never saw it. Either way the method ran nowhere.
    const plain = new RedisConsumedStateStore(await connect(master));
    expect(await plain.consume('unacked', LATER())).toBe(true);
    expect(await plain.consume('unacked', LATER())).toBe(false);
  });

  it('costs one round trip to the replica per presentation (measured against none, same run)', async () => {
    const client = await connect(master);
    const acked = new RedisConsumedStateStore(client, {
      commandTimeoutMs: 3_000,
      waitForReplicas: ONE_REPLICA,
    });
    const plain = new RedisConsumedStateStore(client);
    const perCall = async (store: RedisConsumedStateStore, label: string) => {
      const started = performance.now();
      for (let index = 0; index < 300; index++)
        expect(await store.consume(`${label}-${index}`, LATER())).toBe(true);
      return (performance.now() - started) / 300;
    };
    // Interleaved passes, warm first: the ratio is what docs/redis.md quotes.
    await perCall(plain, 'warm-plain');
    await perCall(acked, 'warm-acked');
    const [plainMs, ackedMs] = [await perCall(plain, 'plain'), await perCall(acked, 'acked')];
    console.log(
      `waitForReplicas: ${ackedMs.toFixed(3)} ms vs ${plainMs.toFixed(3)} ms per presentation (${(ackedMs / plainMs).toFixed(2)}x)`,
    );
    // Every acknowledged record is on the replica already.
    const onReplica = await connect(replica);
    expect(await onReplica.exists('nestjs-mcp:consumed:acked-299')).toBe(1);
  });

  it('answers the retryable -32000 through the module when no replica acknowledges, running nothing', async () => {
    const logger = new CapturingLogger();
    const keyring = newKeyring(['k1']);
    const server: TestServer = await startTestServer(
      'express',
      {
        imports: [
          McpModule.forRoot({
            keyring: { active: keyring.active, keys: keyring.keys },
            redis: { url: master.url, commandTimeoutMs: 3_000, waitForReplicas: ONE_REPLICA },
          }),
          OneTimeStateFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
    try {
      const accepted = await askToDelete(server, 'once_delete');
      expect((await confirmDelete(server, 'once_delete', accepted)).body.result).toBeDefined();
      await replica.stop();
      const state = await askToDelete(server, 'once_delete');
      const refused = await confirmDelete(server, 'once_delete', state);
      expect(refused.body.error).toEqual({
        code: -32000,
        message: 'Server busy: the store is unavailable',
        data: { retryAfterMs: 1_000 },
      });
      expect(server.app.get(HandlerRuns).count('once_delete:deleted')).toBe(1);
      expect(logger.lines.map((line) => line.text).join('\n')).toMatch(
        /The single-use store is unavailable \(not replicated\)/,
      );
    } finally {
      await server.close();
    }
  });
});
