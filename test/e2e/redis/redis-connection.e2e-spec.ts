import { Redis } from 'ioredis';
import { McpModule } from '../../../src/index';
import { McpRedisConnection } from '../../../src/redis/mcp-redis.connection';
import { RedisCommandError } from '../../../src/redis/redis-command.error';
import { HandlerRuns } from '../../fixtures/handler-runs';
import {
  startOneTimeStateApp,
  RecordingConsumedStateStore,
  singleUseFlow,
} from '../request-state/one-time-state.fixtures';
import { CapturingLogger, newKeyring } from '../../fixtures/sample-app';
import {
  HEADER_PARTITIONS,
  StateHandleFixturesModule,
} from '../request-state/state-handles.fixtures';
import { ADAPTERS, startTestServer, startupError } from '../../utils/bootstrap';
import { rawToolCall, resultText, type RawRoundOptions } from '../../utils/mcp';
import {
  closeRedisClient,
  redisReady,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';
import { until } from '../../utils/wait';
import { STORE_UNAVAILABLE } from '../../utils/expect-rpc';

const FORM = { elicitation: {} };

describe.each(ADAPTERS)('the redis option over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  const keys = { active: keyring.active, keys: keyring.keys };
  const logger = new CapturingLogger();
  let redis: RedisServerHandle;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    await closeRedisClient(admin, { whenReady: true });
    await redis?.close();
  });

  const start = (options: Parameters<typeof McpModule.forRoot>[0], imports: unknown[] = []) =>
    startOneTimeStateApp(
      adapter,
      { keyring: keys, ...options },
      { logger, imports: imports as [] },
    );

  async function moduleConnections(): Promise<number> {
    const list = (await admin.client('LIST')) as string;
    return list.split('\n').filter((line) => / name=nestjs-mcp /.test(line)).length;
  }

  /** The module's connection count once it is `expected` (connecting and quitting take a moment). */
  function settledConnections(expected: number): Promise<number> {
    return until(moduleConnections, {
      done: (count) => count === expected,
      what: `${expected} module connections`,
    });
  }

  it('opens its own named connections for a URL, keys under the prefix, and quits them on shutdown', async () => {
    const before = await moduleConnections();
    const server = await start({ redis: { url: redis.url, keyPrefix: 'orders-mcp:' } });
    try {
      // The shared connection, and the subscribers that hear the other instances' fleet events
      // (task status changes, 2025-era session events, list changes: one channel) and keyring
      // changes.
      expect(await settledConnections(before + 3)).toBe(before + 3);
      expect(resultText(await singleUseFlow(server))).toBe('Deleted /srv/report.pdf');
      const keysWritten = await admin.keys('orders-mcp:consumed:*');
      expect(keysWritten).toHaveLength(1);
      expect(keysWritten[0]).toMatch(/^orders-mcp:consumed:[A-Za-z0-9_-]{43}$/);
    } finally {
      await server.close();
    }
    expect(await settledConnections(before)).toBe(before);
  });

  it("gives the module's stores prefixed keys, bounded commands and owned duplicates", async () => {
    const before = await moduleConnections();
    const server = await start({ redis: { url: redis.url, keyPrefix: 'tasks-mcp:' } });
    try {
      const connection = server.app.get(McpRedisConnection);
      expect(connection.key('task', 't1')).toBe('tasks-mcp:task:t1');
      // Commands are refused until the connection is ready, not merely open.
      await redisReady(connection.client);
      expect(
        await connection.run((client) => client.call('SET', connection.key('probe'), 'x')),
      ).toBe('OK');
      expect(await admin.get('tasks-mcp:probe')).toBe('x');
      const worker = connection.duplicate({ maxRetriesPerRequest: null });
      expect(await worker.call('PING')).toBe('PONG');
      expect(await settledConnections(before + 4)).toBe(before + 4);
      await redis.stop();
      const refused = await connection
        .run((client) => client.call('GET', 'tasks-mcp:probe'))
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RedisCommandError);
      expect((refused as RedisCommandError).reason).toMatch(/^(unavailable|timeout)$/);
      await redis.start();
      // Closing while still reconnecting would leave ioredis's disconnect timer running after the test.
      await Promise.all([redisReady(connection.client), redisReady(worker)]);
      expect(await settledConnections(before + 4)).toBe(before + 4);
    } finally {
      await server.close();
    }
    expect(await settledConnections(before)).toBe(before);
  });

  it('uses a client the app passes in and never quits it', async () => {
    const client = new Redis(redis.url);
    const server = await start({ redis: { client, keyPrefix: 'app-client:' } });
    try {
      expect(resultText(await singleUseFlow(server))).toBe('Deleted /srv/report.pdf');
      expect(await admin.keys('app-client:consumed:*')).toHaveLength(1);
    } finally {
      await server.close();
    }
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });

  it('keeps state handles on the same Redis, under <prefix>handle:', async () => {
    const server = await startTestServer(
      adapter,
      {
        imports: [
          McpModule.forRoot({
            redis: { url: redis.url, keyPrefix: 'handles-mcp:' },
            identity: { partitionResolver: HEADER_PARTITIONS },
          }),
          StateHandleFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
    /** A round of `handle_approve` as alice, with `options` (the retry's state and answer). */
    const approve = (options: RawRoundOptions = {}) =>
      rawToolCall(
        server.url,
        'handle_approve',
        { amount: '12.00' },
        { capabilities: FORM, headers: { 'X-User': 'alice' }, ...options },
      );
    try {
      const first = await approve();
      expect(typeof first.body.result?.requestState).toBe('string');
      // The record, and the repository's counts beside it (under "~", which no handle has).
      const keys = await admin.keys('handles-mcp:handle:*');
      expect(keys.filter((key) => !key.startsWith('handles-mcp:handle:~'))).toHaveLength(1);
      expect(keys.filter((key) => key.startsWith('handles-mcp:handle:~')).sort()).toEqual([
        'handles-mcp:handle:~all',
        'handles-mcp:handle:~by:' + keys.find((key) => key.includes('~by:'))?.split('~by:')[1],
        'handles-mcp:handle:~bytes',
      ]);
      const done = await approve({
        requestState: first.body.result?.requestState,
        inputResponses: { approval: { action: 'accept', content: { approve: true } } },
      });
      expect(resultText(done)).toBe('Approved 12.00');
    } finally {
      await server.close();
    }
  });

  it('prefers an explicit ConsumedStateStore to Redis', async () => {
    const server = await start({
      redis: { url: redis.url, keyPrefix: 'unused:' },
      requestState: { consumedStateStore: new RecordingConsumedStateStore() },
    });
    try {
      expect(resultText(await singleUseFlow(server))).toBe('Deleted /srv/report.pdf');
      // Only the fleet's keyring reports (the keyring rotates across the fleet whatever the stores).
      expect(
        (await admin.keys('unused:*')).filter((key) => !key.startsWith('unused:keyring:')),
      ).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('starts while Redis is down, refuses single-use retries meanwhile, and works once Redis is up', async () => {
    await redis.stop();
    const startupMark = logger.lines.length;
    const server = await start({ redis: { url: redis.url, commandTimeoutMs: 300 } });
    try {
      expect(logger.lines.slice(startupMark).map((line) => line.text)).toContainEqual(
        expect.stringContaining('Redis is not ready 300 ms after startup'),
      );
      const mark = logger.lines.length;
      const refused = await singleUseFlow(server);
      // An outage, not a bug: the retryable -32000, nothing consumed, nothing run.
      expect(refused.body.error).toEqual(STORE_UNAVAILABLE);
      expect(server.app.get(HandlerRuns).count('once_delete:deleted')).toBe(0);
      const log = logger.lines.slice(mark).map((line) => line.text);
      expect(log.join('\n')).toMatch(/The single-use store is unavailable \(unavailable\)/);
      await redis.start();
      const response = await until(() => singleUseFlow(server), {
        done: (answer) => answer.body.result !== undefined,
        what: 'a single-use flow to work again',
        everyMs: 100,
      });
      expect(resultText(response)).toBe('Deleted /srv/report.pdf');
      expect(logger.lines.slice(mark).map((line) => line.text)).toContainEqual(
        expect.stringMatching(
          /^The single-use store answers again \(\d+ calls? answered Server busy/,
        ),
      );
    } finally {
      await server.close();
    }
  });

  it('fails startup on a bad redis option, naming it and never echoing the URL', async () => {
    const badUrl = await startupError(adapter, {
      imports: [McpModule.forRoot({ redis: { url: 'http://admin:s3cret@cache:6379' } })],
    });
    expect(badUrl?.name).toBe('InvalidModuleOptionsError');
    expect(badUrl?.message).toContain('"redis.url"');
    expect(badUrl?.message).not.toContain('s3cret');
    const both = await startupError(adapter, {
      imports: [McpModule.forRoot({ redis: { url: redis.url, client: admin } })],
    });
    expect(both?.message).toContain(
      'needs exactly one of "url", "sentinel", "cluster" and "client"',
    );
  });
});
