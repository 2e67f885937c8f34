import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SignJWT } from 'jose';
import { resolveDpopOptions } from '../../../src/auth/dpop.options';
import { DpopNonces } from '../../../src/auth/dpop-nonces';
import {
  Payments,
  accessApp,
  startIntrospectingApp,
  startResourceServerApp,
  payRound,
} from './access.fixtures';
import { startAuthorizationServer } from '../../utils/authorization-server';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import {
  DpopClientCredentialsProvider,
  TestDpopKey,
  dpopHeaders,
  type ProofOverrides,
} from '../../utils/dpop';
import { expectInputRequired } from '../../utils/expect-rpc';
import {
  PROTOCOL_VERSION,
  rawRound,
  rawToolCall,
  resultText,
  stateOf,
  type RawRoundResponse,
} from '../../utils/mcp';
import { initializeMessage, sessionPost, sessionStreamStatus } from '../../utils/session-clients';
import { forSuite } from '../../utils/suite-resource';
import { serverForSuite } from '../../utils/suite-server';

/*
 * DPoP (RFC 9449) on the built-in resource server, against a real authorization server issuing
 * DPoP-bound tokens (oidc-provider) and clients that sign proofs: the official v2 client (its
 * DpopSession, pinned to 2026-07-28 and in a 2025-era session) and hand-made proofs (jose) that
 * get each check wrong on purpose. Every refusal is a 401 with its `error` in the DPoP (or
 * Bearer) challenge, echoes nothing of the proof, and runs nothing: a refused second round of
 * `pay` pays nothing.
 */

const FORM = { elicitation: { form: {} } };
const CONFIRM = { confirm: { action: 'accept', content: { ok: true } } };
const SCOPE = 'mcp:tools payments:write';
const NONCE_SECRET = 'a-nonce-secret-of-at-least-32-bytes!';

const authorization = forSuite(startAuthorizationServer, (server) => server.stop());

/** The official client's DPoP provider, signing in with the admin's client credentials. */
const adminProvider = () =>
  new DpopClientCredentialsProvider({
    clientId: 'admin',
    clientSecret: 'admin-secret',
    scope: SCOPE,
    expectedIssuer: authorization.issuer,
  });

/** An official client whose user accepts every form with `{ ok: true }`. */
function approvingClient(name: string, options: ConstructorParameters<typeof Client>[1]): Client {
  const client = new Client({ name, version: '1.0.0' }, options);
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept',
    content: { ok: true },
  }));
  return client;
}

/** The DPoP challenge of a refusal (the header lists Bearer first when both are accepted). */
function dpopChallenge(response: RawRoundResponse): string {
  const header = response.headers['www-authenticate'] ?? '';
  return header.slice(header.indexOf('DPoP '));
}

function expectRefused(
  response: RawRoundResponse,
  error: string,
  description: string,
  proof?: string,
): void {
  expect(response.status).toBe(401);
  expect(response.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
  expect(dpopChallenge(response)).toContain(
    `DPoP error="${error}", error_description="${description}"`,
  );
  if (proof) expect(response.text).not.toContain(proof);
}

describe.each(ADAPTERS)('DPoP on the resource server over %s', (adapter) => {
  const servers: Record<'allowed' | 'required' | 'nonce', TestServer> = {} as never;

  beforeAll(async () => {
    const started = await Promise.all([
      startTestServer(adapter, {
        imports: [accessApp(true, { resourceServer: { issuer: authorization.issuer } })],
      }),
      startTestServer(adapter, {
        imports: [
          accessApp(false, {
            resourceServer: { issuer: authorization.issuer, dpop: 'required' },
          }),
        ],
      }),
      startTestServer(adapter, {
        imports: [
          accessApp(true, {
            resourceServer: {
              issuer: authorization.issuer,
              dpop: { mode: 'required', nonce: { secret: NONCE_SECRET } },
            },
          }),
        ],
      }),
    ]);
    [servers.allowed, servers.required, servers.nonce] = started;
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server?.close();
  });

  /** A token of the admin bound to `key` (RFC 9449 §5), for `server`. */
  const boundToken = (server: TestServer, key: TestDpopKey) =>
    authorization.token('admin', { scope: SCOPE, resource: server.url.href, dpop: key });

  /** `pay`'s first round with a DPoP proof of `key`; its sealed state for the second. */
  async function firstRound(server: TestServer, key: TestDpopKey, token: string) {
    const proof = await key.proof({ htm: 'POST', htu: server.url, accessToken: token });
    const first = await payRound(server.url, dpopHeaders(token, proof));
    expectInputRequired(first, { confirm: { method: 'elicitation/create' } });
    return stateOf(first);
  }

  /** `pay`'s second round (the one that pays) with `headers`. */
  const secondRound = (server: TestServer, state: string, headers: Record<string, string>) =>
    rawToolCall(
      server.url,
      'pay',
      {},
      {
        capabilities: FORM,
        headers,
        requestState: state,
        inputResponses: CONFIRM,
      },
    );

  it('lets the official client sign in with a DPoP-bound token and complete a two-round flow, every request with a fresh proof', async () => {
    const server = servers.allowed;
    const provider = adminProvider();
    const sent: { authorization: string | null; proof: string | null }[] = [];
    const logged: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const headers = new Headers(init?.headers);
      if (url === server.url.href)
        sent.push({ authorization: headers.get('authorization'), proof: headers.get('dpop') });
      return fetch(input, init);
    };
    const client = approvingClient('dpop-e2e', {
      versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
      capabilities: FORM,
    });
    const payments = server.app.get(Payments);
    const paid = payments.made.length;
    await client.connect(
      new StreamableHTTPClientTransport(server.url, { authProvider: provider, fetch: logged }),
    );
    try {
      const result = await client.callTool({ name: 'pay', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'paid' }]);
      expect(payments.made.length).toBe(paid + 1);
      expect(provider.tokens()?.token_type).toBe('DPoP');
    } finally {
      await client.close();
    }
    const signed = sent.filter((request) => request.authorization?.startsWith('DPoP '));
    expect(signed.length).toBeGreaterThanOrEqual(2);
    expect(new Set(signed.map((request) => request.proof)).size).toBe(signed.length);
  });

  it('serves a bound token with its proof, and refuses it sent as a Bearer token', async () => {
    const server = servers.allowed;
    const key = await TestDpopKey.create();
    const token = await boundToken(server, key);
    const state = await firstRound(server, key, token);
    const payments = server.app.get(Payments);
    const before = payments.made.length;
    const stolen = await secondRound(server, state, { Authorization: `Bearer ${token}` });
    expect(stolen.status).toBe(401);
    expect(stolen.headers['www-authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="The access token is bound to a DPoP key: send it with the DPoP scheme and a proof", resource_metadata="[^"]+", DPoP resource_metadata="[^"]+", algs="ES256 RS256 PS256 EdDSA"$/,
    );
    expect(payments.made.length).toBe(before);
    const proof = await key.proof({ htm: 'POST', htu: server.url, accessToken: token });
    const served = await secondRound(server, state, dpopHeaders(token, proof));
    expect(resultText(served)).toBe('paid');
    expect(payments.made.length).toBe(before + 1);
  });

  describe('refuses, paying nothing,', () => {
    let key: TestDpopKey;
    let token: string;
    let state: string;
    beforeAll(async () => {
      key = await TestDpopKey.create();
      token = await boundToken(servers.allowed, key);
      state = await firstRound(servers.allowed, key, token);
    });

    /** The second round with `proof` (made by `make`), expected refused with `error`. */
    async function refusedWith(
      proof: string,
      error: string,
      description: string,
      headers: Record<string, string> = dpopHeaders(token, proof),
    ): Promise<void> {
      const payments = servers.allowed.app.get(Payments);
      const before = payments.made.length;
      const response = await secondRound(servers.allowed, state, headers);
      expectRefused(response, error, description, proof);
      expect(payments.made.length).toBe(before);
    }

    const url = () => servers.allowed.url;
    const signed = (
      overrides: ProofOverrides,
      request: Partial<{ htm: string; htu: string }> = {},
    ) => key.proof({ htm: 'POST', htu: url(), accessToken: token, ...request }, overrides);

    it('a request without a proof', async () => {
      await refusedWith('', 'invalid_dpop_proof', 'The request carries no DPoP proof', {
        Authorization: `DPoP ${token}`,
      });
    });

    it.each<[string, () => Promise<string>, string]>([
      [
        'for another method',
        () => signed({}, { htm: 'GET' }),
        'The DPoP proof is for another HTTP method',
      ],
      [
        'for another URL',
        () => signed({}, { htu: 'http://127.0.0.1:1/mcp' }),
        'The DPoP proof is for another URL',
      ],
      [
        'for another token (ath)',
        () => signed({ claims: { ath: 'b3RoZXI' } }),
        'The DPoP proof is for another access token',
      ],
      [
        'issued too long ago',
        () => signed({ claims: { iat: Math.floor(Date.now() / 1000) - 120 } }),
        'The DPoP proof was not issued recently enough',
      ],
      [
        'issued in the future',
        () => signed({ claims: { iat: Math.floor(Date.now() / 1000) + 120 } }),
        'The DPoP proof was not issued recently enough',
      ],
      [
        'signed with HS256',
        () => hs256Proof(),
        'The DPoP proof is signed with an algorithm not accepted',
      ],
      [
        'with a private jwk',
        () => signed({ header: { jwk: key.privateJwk } }),
        'The DPoP proof jwk is not a public key',
      ],
      [
        'not of type dpop+jwt',
        () => signed({ header: { typ: 'JWT' } }),
        'The DPoP proof is not of type dpop+jwt',
      ],
    ])('a proof %s', async (_kind, make, description) => {
      await refusedWith(await make(), 'invalid_dpop_proof', description);
    });

    it('a proof with alg none', async () => {
      const header = Buffer.from(
        JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: key.publicJwk }),
      ).toString('base64url');
      const claims = (await signed({})).split('.')[1];
      await refusedWith(
        `${header}.${claims}.AAAA`,
        'invalid_dpop_proof',
        'The DPoP proof is signed with an algorithm not accepted',
      );
    });

    it('two proofs in one request', async () => {
      const proof = `${await signed({})}, ${await signed({})}`;
      await refusedWith(
        proof,
        'invalid_dpop_proof',
        'The request carries more than one DPoP proof',
      );
    });

    it('a proof signed by another key than the token is bound to (invalid_token)', async () => {
      const other = await TestDpopKey.create();
      const proof = await other.proof({ htm: 'POST', htu: url(), accessToken: token });
      await refusedWith(
        proof,
        'invalid_token',
        'The DPoP proof is not signed by the key the token is bound to',
      );
    });

    it('a proof presented a second time', async () => {
      const proof = await key.proof({ htm: 'POST', htu: url(), accessToken: token });
      const list = await rawRound(url(), 'tools/list', {}, { headers: dpopHeaders(token, proof) });
      expect(list.status).toBe(200);
      await refusedWith(proof, 'invalid_dpop_proof', 'The DPoP proof was used before');
    });

    async function hs256Proof(): Promise<string> {
      const secret = new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!');
      return new SignJWT({
        jti: 'hs',
        htm: 'POST',
        htu: url().href,
        iat: Math.floor(Date.now() / 1000),
      })
        .setProtectedHeader({
          alg: 'HS256',
          typ: 'dpop+jwt',
          jwk: { kty: 'oct', k: Buffer.from(secret).toString('base64url') },
        } as never)
        .sign(secret);
    }
  });

  it('allowed: serves a plain bearer token, and a plain token sent with a valid proof as a bearer one', async () => {
    const server = servers.allowed;
    const plain = await authorization.token('admin', { scope: SCOPE, resource: server.url.href });
    const asBearer = await rawRound(
      server.url,
      'tools/list',
      {},
      {
        headers: { Authorization: `Bearer ${plain}` },
      },
    );
    expect(asBearer.status).toBe(200);
    const key = await TestDpopKey.create();
    const proof = await key.proof({ htm: 'POST', htu: server.url, accessToken: plain });
    const withProof = await rawRound(
      server.url,
      'tools/list',
      {},
      {
        headers: dpopHeaders(plain, proof),
      },
    );
    expect(withProof.status).toBe(200);
  });

  it('required: refuses bearer tokens and unbound tokens, challenges with DPoP only, and says so in the metadata', async () => {
    const server = servers.required;
    const anonymous = await rawRound(server.url, 'tools/list', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(
      `DPoP resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp", algs="ES256 RS256 PS256 EdDSA"`,
    );
    const plain = await authorization.token('admin', { scope: SCOPE, resource: server.url.href });
    expectRefused(
      await rawRound(
        server.url,
        'tools/list',
        {},
        { headers: { Authorization: `Bearer ${plain}` } },
      ),
      'invalid_token',
      'The access token must be sent with the DPoP scheme and a proof',
    );
    const key = await TestDpopKey.create();
    const proof = await key.proof({ htm: 'POST', htu: server.url, accessToken: plain });
    expectRefused(
      await rawRound(server.url, 'tools/list', {}, { headers: dpopHeaders(plain, proof) }),
      'invalid_token',
      'The access token is not bound to a DPoP key',
    );
    const bound = await boundToken(server, key);
    const state = await firstRound(server, key, bound);
    const served = await secondRound(
      server,
      state,
      dpopHeaders(bound, await key.proof({ htm: 'POST', htu: server.url, accessToken: bound })),
    );
    expect(resultText(served)).toBe('paid');
    const metadata = (await (
      await fetch(`${server.origin}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      dpop_signing_alg_values_supported: ['ES256', 'RS256', 'PS256', 'EdDSA'],
      dpop_bound_access_tokens_required: true,
    });
  });

  it('nonces: a proof without one, or with a stale one, gets use_dpop_nonce and a fresh DPoP-Nonce it then succeeds with', async () => {
    const server = servers.nonce;
    const key = await TestDpopKey.create();
    const token = await boundToken(server, key);
    const send = async (nonce?: string) =>
      rawRound(
        server.url,
        'tools/list',
        {},
        {
          headers: dpopHeaders(
            token,
            await key.proof({ htm: 'POST', htu: server.url, accessToken: token, nonce }),
          ),
        },
      );
    const missing = await send();
    expectRefused(missing, 'use_dpop_nonce', 'A fresh DPoP nonce is required');
    const fresh = missing.headers['dpop-nonce'];
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Issued under the same secret, two windows ago.
    const { nonce } = resolveDpopOptions({ nonce: { secret: NONCE_SECRET } });
    const stale = new DpopNonces(nonce!.key, 300, () => Date.now() - 600_000).current();
    const refused = await send(stale);
    expectRefused(refused, 'use_dpop_nonce', 'A fresh DPoP nonce is required');
    expect(refused.headers['dpop-nonce']).toBe(fresh);
    const served = await send(fresh);
    expect(served.status).toBe(200);
    expect(served.headers['dpop-nonce']).toBe(fresh);
  });

  it('nonces: the official client retries a use_dpop_nonce challenge with the nonce and completes the flow', async () => {
    const server = servers.nonce;
    const provider = adminProvider();
    const client = approvingClient('dpop-nonce-e2e', {
      versionNegotiation: { mode: { pin: PROTOCOL_VERSION } },
      capabilities: FORM,
    });
    await client.connect(new StreamableHTTPClientTransport(server.url, { authProvider: provider }));
    try {
      const result = await client.callTool({ name: 'pay', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'paid' }]);
    } finally {
      await client.close();
    }
  });
});

describe.each(ADAPTERS)('a 2025-era session with DPoP over %s', (adapter) => {
  const server = serverForSuite(() =>
    startTestServer(adapter, {
      imports: [
        accessApp(true, { resourceServer: { issuer: authorization.issuer, dpop: 'required' } }),
      ],
    }),
  );

  it('completes a flow in the official client’s session, each request with its own proof', async () => {
    const provider = adminProvider();
    const client = approvingClient('dpop-2025', { capabilities: FORM });
    await client.connect(new StreamableHTTPClientTransport(server.url, { authProvider: provider }));
    try {
      expect(client.getNegotiatedProtocolVersion?.() ?? '2025-11-25').not.toBe(PROTOCOL_VERSION);
      const result = await client.callTool({ name: 'pay', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'paid' }]);
    } finally {
      await client.close();
    }
  });

  it('serves a session only to its subject holding the same key', async () => {
    const key = await TestDpopKey.create();
    const token = await authorization.token('admin', {
      scope: SCOPE,
      resource: server.url.href,
      dpop: key,
    });
    const post = async (
      signer: TestDpopKey,
      bearer: string,
      message: Record<string, unknown>,
      session?: string,
    ) => {
      const proof = await signer.proof({ htm: 'POST', htu: server.url, accessToken: bearer });
      return sessionPost(server.url, message, session, dpopHeaders(bearer, proof));
    };
    const opened = await post(key, token, initializeMessage({}, 1));
    expect(opened.status).toBe(200);
    const session = opened.sessionId as string;
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    expect((await post(key, token, list, session)).status).toBe(200);
    // The same client and subject, with a token bound to another key: not this session.
    const otherKey = await TestDpopKey.create();
    const otherToken = await authorization.token('admin', {
      scope: SCOPE,
      resource: server.url.href,
      dpop: otherKey,
    });
    expect((await post(otherKey, otherToken, list, session)).status).toBe(404);
    // Its GET stream too needs a proof, for GET.
    const stream = async (htm: string) =>
      sessionStreamStatus(
        server.url,
        session,
        dpopHeaders(token, await key.proof({ htm, htu: server.url, accessToken: token })),
      );
    expect(await stream('POST')).toBe(401);
    expect(await stream('GET')).toBe(200);
  });
});

describe('DPoP-bound opaque tokens by introspection', () => {
  const server = serverForSuite(() => startIntrospectingApp(authorization));

  it('takes the binding from the introspection answer (cnf.jkt): served with a proof of the key, refused without', async () => {
    const key = await TestDpopKey.create();
    const token = await authorization.token('opaque', {
      scope: SCOPE,
      resource: server.url.href,
      dpop: key,
    });
    expect(token.split('.')).toHaveLength(1);
    const proof = await key.proof({ htm: 'POST', htu: server.url, accessToken: token });
    expect(
      (await rawToolCall(server.url, 'public_echo', {}, { headers: dpopHeaders(token, proof) }))
        .status,
    ).toBe(200);
    const asBearer = await rawToolCall(
      server.url,
      'public_echo',
      {},
      {
        headers: { Authorization: `Bearer ${token}` },
      },
    );
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers['www-authenticate']).toContain('bound to a DPoP key');
    const other = await TestDpopKey.create();
    const foreign = await other.proof({ htm: 'POST', htu: server.url, accessToken: token });
    expectRefused(
      await rawToolCall(server.url, 'public_echo', {}, { headers: dpopHeaders(token, foreign) }),
      'invalid_token',
      'The DPoP proof is not signed by the key the token is bound to',
    );
  });
});

describe('the DPoP replay cache, bounded with a fair share per token subject', () => {
  const server = serverForSuite(() =>
    startResourceServerApp({
      issuer: authorization.issuer,
      dpop: { maxReplayEntries: 10, maxReplayEntriesPerSubject: 3 },
    }),
  );

  it('refuses a subject past its share with the retryable -32000, whatever keys it mints, and still serves another subject', async () => {
    const call = async (client: string) => {
      // A fresh key each time: keys cost a client nothing, its subject is what is counted.
      const key = await TestDpopKey.create();
      const token = await authorization.token(client, {
        scope: 'mcp:tools',
        resource: server.url.href,
        dpop: key,
      });
      const proof = await key.proof({ htm: 'POST', htu: server.url, accessToken: token });
      return rawToolCall(server.url, 'public_echo', {}, { headers: dpopHeaders(token, proof) });
    };
    for (let i = 0; i < 3; i++) expect((await call('alice')).status).toBe(200);
    const refused = await call('alice');
    expect(refused.status).toBe(503);
    expect(refused.body.error).toEqual({
      code: -32000,
      message: 'Server busy: too many DPoP proofs for this caller',
      data: { retryAfterMs: expect.any(Number) },
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await call('admin')).status).toBe(200);
  });
});
