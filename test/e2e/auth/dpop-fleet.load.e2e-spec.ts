import { Payments, accessApp } from './access.fixtures';
import { newKeyring } from '../../fixtures/sample-app';
import {
  startAuthorizationServer,
  type AuthorizationServer,
} from '../../utils/authorization-server';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { TestDpopKey, dpopHeaders } from '../../utils/dpop';
import { expectInputRequired } from '../../utils/expect-rpc';
import { rawToolCall, resultText, stateOf, type RawRoundResponse } from '../../utils/mcp';
import { startRedisServer, type RedisServerHandle } from '../../utils/redis-server';
import { until } from '../../utils/wait';

/*
 * DPoP on a fleet: two instances (Express and Fastify) behind one public URL, sharing Redis, with
 * server nonces. A proof's jti is accepted once across the fleet: replayed on the other instance
 * it is refused, and of 10 concurrent presentations of one proof over both exactly one is served
 * (and pays once). A nonce either instance issued works on the other. With Redis down a DPoP
 * request is answered 503 with the retryable -32000, and nothing runs.
 */

const PUBLIC_URL = 'http://mcp.fleet.test/mcp';
const FORM = { elicitation: { form: {} } };
const CONFIRM = { confirm: { action: 'accept', content: { ok: true } } };
const SCOPE = 'mcp:tools payments:write';

describe('DPoP across a fleet on Redis', () => {
  let as: AuthorizationServer;
  let redis: RedisServerHandle;
  const fleet: TestServer[] = [];
  let key: TestDpopKey;
  let token: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    redis = await startRedisServer();
    const keyring = newKeyring(['k1']);
    for (const adapter of ALL_ADAPTERS)
      fleet.push(
        await startTestServer(adapter, {
          imports: [
            accessApp(
              adapter === 'express',
              {
                resource: PUBLIC_URL,
                resourceServer: {
                  issuer: as.issuer,
                  dpop: {
                    mode: 'required',
                    nonce: { secret: 'the-fleet-nonce-secret-32-bytes!!' },
                  },
                },
              },
              {},
              {
                keyring: { active: keyring.active, keys: keyring.keys },
                redis: { url: redis.url, commandTimeoutMs: 500 },
              },
            ),
          ],
        }),
      );
    key = await TestDpopKey.create();
    token = await as.token('admin', { scope: SCOPE, resource: PUBLIC_URL, dpop: key });
  });
  afterAll(async () => {
    for (const server of fleet) await server.close();
    await redis?.close();
    await as?.stop();
  });

  const paid = () => fleet.reduce((sum, server) => sum + server.app.get(Payments).made.length, 0);

  /** A proof for the fleet's public URL, with `nonce`. */
  const proofWith = (nonce?: string) =>
    key.proof({ htm: 'POST', htu: PUBLIC_URL, accessToken: token, nonce });

  /** A nonce, from a use_dpop_nonce challenge of `server`. */
  async function nonceOf(server: TestServer): Promise<string> {
    const challenged = await rawToolCall(
      server.url,
      'public_echo',
      {},
      {
        headers: dpopHeaders(token, await proofWith()),
      },
    );
    expect(challenged.status).toBe(401);
    expect(challenged.headers['www-authenticate']).toContain('DPoP error="use_dpop_nonce"');
    return challenged.headers['dpop-nonce'];
  }

  /** `pay`'s sealed first-round state, asked on `server`. */
  async function firstRound(server: TestServer, nonce: string): Promise<string> {
    const first = await rawToolCall(
      server.url,
      'pay',
      {},
      {
        capabilities: FORM,
        headers: dpopHeaders(token, await proofWith(nonce)),
      },
    );
    expectInputRequired(first, { confirm: { method: 'elicitation/create' } });
    return stateOf(first);
  }

  const secondRound = (server: TestServer, state: string, proof: string) =>
    rawToolCall(
      server.url,
      'pay',
      {},
      {
        capabilities: FORM,
        headers: dpopHeaders(token, proof),
        requestState: state,
        inputResponses: CONFIRM,
      },
    );

  it('accepts a nonce issued by either instance on the other', async () => {
    const [a, b] = fleet;
    const fromA = await nonceOf(a);
    const fromB = await nonceOf(b);
    for (const [server, nonce] of [
      [b, fromA],
      [a, fromB],
    ] as const) {
      const served = await rawToolCall(
        server.url,
        'public_echo',
        {},
        {
          headers: dpopHeaders(token, await proofWith(nonce)),
        },
      );
      expect(resultText(served)).toBe('echo');
    }
  });

  it('refuses a proof replayed on the other instance, paying once', async () => {
    const [a, b] = fleet;
    const nonce = await nonceOf(a);
    const state = await firstRound(a, nonce);
    const before = paid();
    const proof = await proofWith(nonce);
    expect(resultText(await secondRound(a, state, proof))).toBe('paid');
    const replayed = await secondRound(b, state, proof);
    expect(replayed.status).toBe(401);
    expect(replayed.headers['www-authenticate']).toContain(
      'DPoP error="invalid_dpop_proof", error_description="The DPoP proof was used before"',
    );
    expect(paid()).toBe(before + 1);
  });

  it('serves exactly one of 10 concurrent presentations of one proof over both instances', async () => {
    const nonce = await nonceOf(fleet[0]);
    const state = await firstRound(fleet[1], nonce);
    const before = paid();
    const proof = await proofWith(nonce);
    const responses: RawRoundResponse[] = await Promise.all(
      Array.from({ length: 10 }, (_, i) => secondRound(fleet[i % 2], state, proof)),
    );
    const served = responses.filter((response) => response.status === 200);
    expect(served.map(resultText)).toEqual(['paid']);
    for (const refused of responses.filter((response) => response.status !== 200)) {
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_dpop_proof"');
    }
    expect(paid()).toBe(before + 1);
  });

  it('answers 503 with the retryable -32000 while Redis is down, running nothing, and serves again once it is back', async () => {
    const [a, b] = fleet;
    const nonce = await nonceOf(a);
    const state = await firstRound(b, nonce);
    const before = paid();
    await redis.stop();
    try {
      for (const server of fleet) {
        const refused = await secondRound(server, state, await proofWith(nonce));
        expect(refused.status).toBe(503);
        expect(refused.body.error).toEqual({
          code: -32000,
          message: 'Server busy: the store is unavailable',
          data: { retryAfterMs: 1000 },
        });
        expect(refused.headers['retry-after']).toBe('1');
      }
      expect(paid()).toBe(before);
    } finally {
      await redis.start();
    }
    const served = await until(
      async () => secondRound(a, state, await proofWith(await nonceOf(a))),
      {
        done: (response) => response.status === 200,
        what: 'a DPoP call once Redis is back',
        timeoutMs: 15_000,
        everyMs: 200,
      },
    );
    expect(resultText(served)).toBe('paid');
    expect(paid()).toBe(before + 1);
  });
});
