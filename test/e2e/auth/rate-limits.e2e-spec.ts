import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import { McpThrottlerGuard } from '../../../src/entry/throttler';
import { accessApp } from './access.fixtures';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawRound, rawToolCall, type RawRoundResponse } from '../../utils/mcp';
import {
  closeRedisClient,
  startRedisServer,
  type RedisServerHandle,
} from '../../utils/redis-server';

/*
 * Rate limits per MCP caller with @nestjs/throttler and McpThrottlerGuard: counted per caller
 * partition and operation, lists not counted, over the limit HTTP 429 with Retry-After and
 * -32029 (never an isError result), or with rateLimits.errors 'sep-3304' the draft's -32023 with
 * the limit and what remains; on Redis, shared by two instances.
 */

const LIMIT = 3;
const ALICE = { 'x-user': 'alice' };
const BOB = { 'x-user': 'bob' };

/**
 * HTTP 429 with a Retry-After and no result, only the JSON-RPC `error` (by default the module's
 * -32029), whose data says the Retry-After in milliseconds and what `data` adds.
 */
function expectThrottled(
  response: RawRoundResponse,
  { code = -32029, message = 'Too many requests', data = {} as Record<string, unknown> } = {},
): void {
  expect(response.status).toBe(429);
  const retryAfter = Number(response.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(response.body.result).toBeUndefined();
  expect(response.body.error).toEqual({
    code,
    message,
    data: { retryAfterMs: retryAfter * 1000, ...data },
  });
}

describe.each(ALL_ADAPTERS)('rate limits per caller over %s', (adapter) => {
  describe.each([true, false])('fast path %s', (fastPath) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(adapter, {
        imports: [
          accessApp(
            fastPath,
            {},
            {
              imports: [ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: LIMIT }] })],
              guards: [McpThrottlerGuard],
            },
          ),
        ],
      });
    });
    afterAll(async () => {
      await server?.close();
    });

    it('counts calls per caller and operation, not lists, and answers 429 with Retry-After over the limit', async () => {
      for (let i = 0; i < 5; i++) {
        const list = await rawRound(server.url, 'tools/list', {}, { headers: ALICE });
        expect(list.status).toBe(200);
      }
      for (let i = 0; i < LIMIT; i++) {
        const ok = await rawToolCall(server.url, 'public_echo', {}, { headers: ALICE });
        expect(ok.status).toBe(200);
        expect(ok.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i - 1));
      }
      expectThrottled(await rawToolCall(server.url, 'public_echo', {}, { headers: ALICE }));
      // Another caller, and another operation of the same caller, have budgets of their own.
      expect((await rawToolCall(server.url, 'public_echo', {}, { headers: BOB })).status).toBe(200);
      expect(
        (await rawRound(server.url, 'prompts/get', { name: 'public_prompt' }, { headers: ALICE }))
          .status,
      ).toBe(200);
    });
  });
});

describe.each(ALL_ADAPTERS)('rate limits as the draft SEP-3304 says, over %s', (adapter) => {
  describe.each([true, false])('fast path %s', (fastPath) => {
    let server: TestServer;
    let plain: TestServer;
    beforeAll(async () => {
      const app = (guard: typeof McpThrottlerGuard | typeof ThrottlerGuard) =>
        startTestServer(adapter, {
          imports: [
            accessApp(
              fastPath,
              {},
              {
                imports: [ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: LIMIT }] })],
                guards: [guard],
              },
              { rateLimits: { errors: 'sep-3304' } },
            ),
          ],
        });
      server = await app(McpThrottlerGuard);
      plain = await app(ThrottlerGuard);
    });
    afterAll(async () => {
      await server?.close();
      await plain?.close();
    });

    it('answers -32023 with retryAfterMs, limit and remaining, HTTP 429, Retry-After and RateLimit-Limit/-Remaining', async () => {
      for (let i = 0; i < LIMIT; i++)
        expect((await rawToolCall(server.url, 'public_echo', {}, { headers: ALICE })).status).toBe(
          200,
        );
      const refused = await rawToolCall(server.url, 'public_echo', {}, { headers: ALICE });
      expectThrottled(refused, {
        code: -32023,
        message: 'Rate limited',
        data: { limit: LIMIT, remaining: 0 },
      });
      expect(refused.headers['ratelimit-limit']).toBe(String(LIMIT));
      expect(refused.headers['ratelimit-remaining']).toBe('0');
    });

    it("answers the plain ThrottlerGuard's refusal the same way, without the limit it does not say", async () => {
      for (let i = 0; i < LIMIT; i++)
        expect((await rawToolCall(plain.url, 'public_echo', {}, { headers: ALICE })).status).toBe(
          200,
        );
      const refused = await rawToolCall(plain.url, 'public_echo', {}, { headers: ALICE });
      expectThrottled(refused, { code: -32023, message: 'Rate limited' });
      expect(refused.headers['ratelimit-limit']).toBeUndefined();
    });
  });
});

describe('rate limits shared by two instances on Redis', () => {
  let redis: RedisServerHandle;
  const clients: Redis[] = [];
  const servers: TestServer[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    for (const fastPath of [true, false]) {
      const client = new Redis(redis.url);
      clients.push(client);
      servers.push(
        await startTestServer('express', {
          imports: [
            accessApp(
              fastPath,
              {},
              {
                imports: [
                  ThrottlerModule.forRoot({
                    throttlers: [{ ttl: 60_000, limit: LIMIT }],
                    storage: new ThrottlerStorageRedisService(client),
                  }),
                ],
                guards: [McpThrottlerGuard],
              },
            ),
          ],
        }),
      );
    }
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const client of clients) await closeRedisClient(client);
    await redis?.close();
  });

  it('counts a caller across both, and answers 429 on the second once the first spent the budget', async () => {
    const [a, b] = servers;
    for (let i = 0; i < LIMIT - 1; i++)
      expect((await rawToolCall(a.url, 'public_echo', {}, { headers: ALICE })).status).toBe(200);
    expect((await rawToolCall(b.url, 'public_echo', {}, { headers: ALICE })).status).toBe(200);
    expectThrottled(await rawToolCall(b.url, 'public_echo', {}, { headers: ALICE }));
    expectThrottled(await rawToolCall(a.url, 'public_echo', {}, { headers: ALICE }));
    expect((await rawToolCall(a.url, 'public_echo', {}, { headers: BOB })).status).toBe(200);
  });
});
