import Redis from 'ioredis';
import { McpModule } from '../../../src/index';
import { RedisStateHandleRepository } from '../../../src/entry/redis';
import { HandlerRuns } from '../../fixtures/handler-runs';
import { CapturingLogger, newKeyring } from '../../fixtures/sample-app';
import { HEADER_PARTITIONS, StateHandleFixturesModule } from './state-handles.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawToolCall, resultText, type RawRoundResponse } from '../../utils/mcp';
import { expectExactlyOneAccepted, INVALID_STATE, STORE_UNAVAILABLE } from '../../utils/expect-rpc';
import { startRedisServer, type RedisServerHandle } from '../../utils/redis-server';
import { until } from '../../utils/wait';
import { APPROVE } from '../../utils/sample-calls';

describe.each(ADAPTERS)('state handles across two instances sharing Redis, over %s', (adapter) => {
  let redis: RedisServerHandle;
  const clients: Redis[] = [];
  const logger = new CapturingLogger();
  // One keyring for the fleet: each instance checks the records the others wrote.
  const keyring = newKeyring(['k1']);
  let instances: TestServer[] = [];

  /** One app instance with its own Redis connection, as a separate process would have. */
  async function instance(): Promise<TestServer> {
    const client = new Redis(redis.url);
    clients.push(client);
    return startTestServer(
      adapter,
      {
        imports: [
          McpModule.forRoot({
            keyring: { active: keyring.active, keys: { ...keyring.keys } },
            identity: { partitionResolver: HEADER_PARTITIONS },
            requestState: {
              stateHandleRepository: new RedisStateHandleRepository(client, {
                keyPrefix: `fleet-${adapter}:`,
                commandTimeoutMs: 500,
              }),
            },
          }),
          StateHandleFixturesModule,
        ],
      },
      '/mcp',
      { logger },
    );
  }

  beforeAll(async () => {
    redis = await startRedisServer();
    instances = [await instance(), await instance()];
  });

  afterAll(async () => {
    for (const server of instances) await server.close();
    for (const client of clients) await client.quit();
    await redis?.close();
  });

  const call = (
    server: TestServer,
    tool: string,
    args: Record<string, unknown>,
    requestState?: string,
    inputResponses?: unknown,
  ): Promise<RawRoundResponse> =>
    rawToolCall(server.url, tool, args, {
      capabilities: { elicitation: {} },
      headers: { 'X-User': 'alice' },
      requestState,
      inputResponses,
    });

  const approvals = () =>
    instances.reduce(
      (sum, server) => sum + server.app.get(HandlerRuns).count('handle_approve:approved'),
      0,
    );

  it('runs the handler once for 50 concurrent retries of one handle spread over both instances', async () => {
    const [a, b] = instances;
    const handle = (await call(a, 'handle_approve', { amount: '310.00' })).body.result
      ?.requestState as string;
    expect(typeof handle).toBe('string');
    const before = approvals();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        call(index % 2 ? a : b, 'handle_approve', { amount: '310.00' }, handle, APPROVE),
      ),
    );
    expectExactlyOneAccepted(responses, 'Approved 310.00');
    expect(approvals()).toBe(before + 1);
  });

  it('continues a flow on whichever instance each round lands on', async () => {
    const [a, b] = instances;
    const answer = (step: number, value: string) => ({
      [`step-${step}`]: { action: 'accept', content: { value } },
    });
    const first = (await call(a, 'handle_collect', { rounds: 3 })).body.result?.requestState;
    const second = (await call(b, 'handle_collect', { rounds: 3 }, first, answer(1, 'x'))).body
      .result?.requestState;
    const third = (await call(a, 'handle_collect', { rounds: 3 }, second, answer(2, 'y'))).body
      .result?.requestState;
    expect(new Set([first, second, third]).size).toBe(3);
    // The handle redeemed on instance b is spent on instance a too.
    expect(
      (await call(a, 'handle_collect', { rounds: 3 }, first, answer(1, 'x'))).body.error,
    ).toEqual(INVALID_STATE);
    expect(resultText(await call(b, 'handle_collect', { rounds: 3 }, third, answer(3, 'z')))).toBe(
      'x,y,z',
    );
  });

  it('answers the retryable -32000 while Redis is down, logging the outage once per instance, and serves flows again once it is back', async () => {
    const [a, b] = instances;
    const handle = (await call(a, 'handle_approve', { amount: '1.00' })).body.result
      ?.requestState as string;
    const before = approvals();
    const mark = logger.lines.length;
    await redis.stop();
    try {
      const retry = await call(b, 'handle_approve', { amount: '1.00' }, handle, APPROVE);
      expect(retry.body.error).toEqual(STORE_UNAVAILABLE);
      const fresh = await call(a, 'handle_approve', { amount: '2.00' });
      expect(fresh.body.error).toEqual(STORE_UNAVAILABLE);
      expect((await call(a, 'handle_approve', { amount: '3.00' })).body.error).toEqual(
        STORE_UNAVAILABLE,
      );
      const logged = logger.lines
        .slice(mark)
        .map((line) => line.text)
        .join('\n');
      // Once per instance, however many calls the outage refused there.
      expect(
        logged.match(/The state handle repository is unavailable \((timeout|unavailable)\)/g),
      ).toHaveLength(2);
      expect(logged).not.toContain(handle);
      expect(approvals()).toBe(before);
    } finally {
      await redis.start();
    }
    // The restarted server is empty: old flows are gone, new ones work once both clients reconnect.
    const second = await until(
      async () => {
        const probe = await call(a, 'handle_approve', { amount: '0.01' });
        const onB = await call(b, 'handle_approve', { amount: '3.00' });
        return probe.body.result && onB.body.result ? onB : undefined;
      },
      { what: 'both instances to save handles again', everyMs: 100 },
    );
    const next = second.body.result?.requestState as string;
    expect(typeof next).toBe('string');
    expect(resultText(await call(a, 'handle_approve', { amount: '3.00' }, next, APPROVE))).toBe(
      'Approved 3.00',
    );
  });
});
