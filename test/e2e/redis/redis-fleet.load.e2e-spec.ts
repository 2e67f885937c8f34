import { Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { McpModule } from '../../../src/index';

import {
  askToDelete,
  confirmDelete,
  OneTimeStateFixturesModule,
  startOneTimeStateApp,
  deletionsOn,
} from '../request-state/one-time-state.fixtures';
import { CapturingLogger, newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS, startTestServer } from '../../utils/bootstrap';
import { resultText, type RawRoundResponse } from '../../utils/mcp';
import { expectExactlyOneAccepted, INVALID_STATE, STORE_UNAVAILABLE } from '../../utils/expect-rpc';
import { closeRedisClient, startRedisServer } from '../../utils/redis-server';
import { until } from '../../utils/wait';
import { serverForSuite } from '../../utils/suite-server';
import { SuiteScope } from '../../utils/suite-resource';

const APP_REDIS = Symbol('APP_REDIS');
/** Redis reconnections take a while: polls for up to 15 s, every 100 ms. */
const RECONNECTING = { timeoutMs: 15_000, everyMs: 100 };

describe.each(ADAPTERS)('a fleet of two instances sharing Redis, over %s', (adapter) => {
  const keyring = { ...newKeyring(['k1']) };
  const logger = new CapturingLogger();
  const keys = { active: keyring.active, keys: keyring.keys };
  const scope = new SuiteScope();
  const redis = scope.open(startRedisServer, (server) => server.close());
  /** The app's own ioredis client, which `second` takes from DI. */
  const appClient = scope.open(
    () => {
      const client = new Redis(redis.url, { maxRetriesPerRequest: null });
      client.on('error', () => undefined);
      return client;
    },
    (client) => closeRedisClient(client),
  );
  /** Configured with `redis: { url }`: the module owns its connection. */
  const first = serverForSuite(
    () =>
      startOneTimeStateApp(
        adapter,
        { keyring: keys, redis: { url: redis.url, commandTimeoutMs: 500 } },
        { logger },
      ),
    scope,
  );
  /** Configured through `forRootAsync` with the app's own ioredis client from DI. */
  const second = serverForSuite(() => {
    @Module({ providers: [{ provide: APP_REDIS, useValue: appClient }], exports: [APP_REDIS] })
    class AppRedisModule {}
    return startTestServer(
      adapter,
      {
        imports: [
          McpModule.forRootAsync({
            imports: [AppRedisModule],
            inject: [APP_REDIS],
            useFactory: (client: Redis) => ({
              keyring: keys,
              redis: { client, commandTimeoutMs: 500 },
            }),
          }),
          OneTimeStateFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
  }, scope);

  const deletions = () => deletionsOn(first, second);

  it('runs the handler once for 50 concurrent retries of one state spread over both; 49 get -32602', async () => {
    const state = await askToDelete(first, 'once_delete');
    const before = deletions();
    const mark = logger.lines.length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        confirmDelete(index % 2 ? second : first, 'once_delete', state),
      ),
    );
    expectExactlyOneAccepted(responses, 'Deleted /srv/report.pdf');
    expect(deletions()).toBe(before + 1);
    expect(logger.text(mark).match(/request state rejected: replayed\b/g)).toHaveLength(49);
  });

  it('refuses on one instance a state the other already accepted', async () => {
    const state = await askToDelete(second, 'once_delete');
    expect(resultText(await confirmDelete(second, 'once_delete', state))).toBe(
      'Deleted /srv/report.pdf',
    );
    expect((await confirmDelete(first, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
    expect((await confirmDelete(second, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
  });

  it('answers single-use retries with the retryable -32000 while Redis is down, logging the outage once per instance, and recovers without a restart', async () => {
    const before = deletions();
    const mark = logger.lines.length;
    const responses: RawRoundResponse[] = [];
    let stopped = false;
    // Fresh flows, one after another on alternate instances, until a few have met the outage.
    const drive = (async () => {
      let failuresAfterStop = 0;
      for (let index = 0; failuresAfterStop < 6 && index < 5_000; index++) {
        const server = index % 2 ? second : first;
        const response = await confirmDelete(
          server,
          'once_delete',
          await askToDelete(server, 'once_delete'),
        );
        responses.push(response);
        if (stopped && response.body.error) failuresAfterStop++;
      }
    })();
    await until(() => responses.length >= 10, { ...RECONNECTING, what: '10 retries answered' });
    await redis.stop();
    stopped = true;
    await drive;

    const completed = responses.filter((response) => response.body.result !== undefined);
    const failed = responses.filter((response) => response.body.error !== undefined);
    expect(completed.length).toBeGreaterThanOrEqual(10);
    expect(failed.length).toBeGreaterThan(0);
    for (const response of completed) expect(resultText(response)).toBe('Deleted /srv/report.pdf');
    for (const response of failed) expect(response.body.error).toEqual(STORE_UNAVAILABLE);
    // Nothing ran unrecorded: every run of the handler is a completed call.
    expect(deletions()).toBe(before + completed.length);
    const log = logger.text(mark);
    expect(
      log.match(/The single-use store is unavailable \((unavailable|timeout)\)/g)?.length,
    ).toBeLessThanOrEqual(2);
    expect(log).not.toMatch(/rediss?:\/\//);

    // While Redis is down: round 1 and operations that are not single-use still work.
    const repeatable = await askToDelete(second, 'repeatable_delete');
    expect(resultText(await confirmDelete(second, 'repeatable_delete', repeatable))).toBe(
      'Deleted /srv/report.pdf',
    );
    const pending = await askToDelete(first, 'once_delete');
    expect((await confirmDelete(first, 'once_delete', pending)).body.error).toEqual(
      STORE_UNAVAILABLE,
    );

    await redis.start();
    const accepted: string[] = [];
    for (const server of [first, second]) {
      accepted.push(
        await until(
          async () => {
            const fresh = await askToDelete(server, 'once_delete');
            const response = await confirmDelete(server, 'once_delete', fresh);
            return response.body.result ? fresh : undefined;
          },
          { ...RECONNECTING, what: 'single-use retries succeed again' },
        ),
      );
    }
    // Back to enforcing, not merely accepting: a state just accepted is refused everywhere.
    for (const state of accepted) {
      expect((await confirmDelete(first, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
      expect((await confirmDelete(second, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
    }
    // Each instance's own connections (the first's shared one, the fleet and keyring subscribers)
    // say when they went down and when they came back: once per instance.
    const readyAgain = () => logger.text(mark).match(/Redis connection ready again/g) ?? [];
    // A subscriber may reconnect a moment after the calls above already succeed.
    await until(() => readyAgain().length >= 2, { ...RECONNECTING, what: 'all reconnected' });
    expect(readyAgain()).toHaveLength(2);
    expect(logger.text(mark).match(/Redis connection lost \(\w+\); reconnecting/g)).toHaveLength(2);
  });
});
