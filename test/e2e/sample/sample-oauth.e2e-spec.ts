import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { sampleBehindAuthorizationServer } from '../../utils/sample-oauth';
import { expectInputRequired } from '../../utils/expect-rpc';
import { PROTOCOL_VERSION, rawToolCall } from '../../utils/mcp';
import { initializeRaw } from '../../utils/session-clients';
import { TRANSFER } from '../../utils/sample-calls';

/*
 * The sample app as an OAuth protected resource (SAMPLE_AUTH=oauth, OAUTH_ISSUER) in front of a
 * real authorization server (oidc-provider): it fails closed — a request without a token is 401
 * with the resource_metadata challenge on both protocol eras — and the official client's
 * ClientCredentialsProvider signs in from that 401 and completes a plain tool and the sealed
 * transfer_funds flow with its token on every round, pinned to 2026-07-28 and in a 2025-era
 * session. transfer_funds needs payments:write, which the metadata advertises. The variables are
 * read when the sample's modules load, so they are set before it is required.
 */

const FORM = { elicitation: { form: {} } };
const ALGS = 'algs="ES256 RS256 PS256 EdDSA"';

const oauth = sampleBehindAuthorizationServer();

/** The official client, signed in with the admin's client credentials (payments:write). */
function adminClient(pinned: boolean): { client: Client; provider: ClientCredentialsProvider } {
  const provider = new ClientCredentialsProvider({
    clientId: 'admin',
    clientSecret: 'admin-secret',
    scope: 'mcp:tools payments:write',
    expectedIssuer: oauth.as.issuer,
  });
  const client = new Client(
    { name: 'sample-oauth', version: '1.0.0' },
    {
      ...(pinned && { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } }),
      capabilities: FORM,
    },
  );
  client.setRequestHandler('elicitation/create', () => ({
    action: 'accept',
    content: { approve: true },
  }));
  return { client, provider };
}

describe.each(ADAPTERS)('the sample as an OAuth protected resource over %s', (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await oauth.sample.startSampleApp(adapter, {
      MCP_KEYRING: oauth.sample.newKeyring(['k1']).json,
    });
  });
  afterAll(() => server?.close());

  const metadataUrl = () => `${server.origin}/.well-known/oauth-protected-resource/mcp`;

  it('advertises payments:write for the endpoint it serves', async () => {
    const response = await fetch(metadataUrl());
    expect(await response.json()).toEqual({
      resource: server.url.href,
      authorization_servers: [oauth.as.issuer],
      scopes_supported: ['payments:write'],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['ES256', 'RS256', 'PS256', 'EdDSA'],
    });
  });

  it('answers a request without a token 401 with the resource_metadata challenge, on both eras', async () => {
    const plain = await rawToolCall(server.url, 'test_simple_text', {});
    expect(plain.status).toBe(401);
    // Bearer, and DPoP beside it (OAUTH_DPOP unset: the module's default, allowed).
    expect(plain.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${metadataUrl()}", DPoP resource_metadata="${metadataUrl()}", ${ALGS}`,
    );
    const transfer = await rawToolCall(server.url, 'transfer_funds', TRANSFER, {
      capabilities: FORM,
    });
    expect(transfer.status).toBe(401);
    expect(transfer.headers['www-authenticate']).toBe(
      `Bearer scope="payments:write", resource_metadata="${metadataUrl()}", ` +
        `DPoP scope="payments:write", resource_metadata="${metadataUrl()}", ${ALGS}`,
    );
    const session = await initializeRaw(server.url);
    expect(session.status).toBe(401);
    expect(session.sessionId).toBeUndefined();
    expect(session.messages).toEqual([
      { jsonrpc: '2.0', id: 0, error: { code: -32001, message: 'Unauthorized' } },
    ]);
  });

  it('asks for the approval with a payments:write token and steps up without it', async () => {
    const full = await oauth.as.token('admin', {
      scope: 'mcp:tools payments:write',
      resource: server.url.href,
    });
    const ok = await rawToolCall(server.url, 'transfer_funds', TRANSFER, {
      capabilities: FORM,
      headers: { Authorization: `Bearer ${full}` },
    });
    expectInputRequired(ok, { approval: { method: 'elicitation/create' } });
    const alice = await oauth.as.token('alice', { scope: 'mcp:tools', resource: server.url.href });
    const stepUp = await rawToolCall(server.url, 'transfer_funds', TRANSFER, {
      capabilities: FORM,
      headers: { Authorization: `Bearer ${alice}` },
    });
    expect(stepUp.status).toBe(403);
    expect(stepUp.headers['www-authenticate']).toContain('scope="payments:write"');
  });

  it.each([
    ['pinned to 2026-07-28', true],
    ['in a 2025-era session', false],
  ])(
    'lets the official client sign in from the 401 and complete a plain tool and the sealed flow, %s',
    async (_era, pinned) => {
      const { client, provider } = adminClient(pinned);
      const sent: (string | undefined)[] = [];
      // What reached the MCP endpoint (the authorization server's requests aside).
      const fetchWithLog: typeof fetch = (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        if (url === server.url.href)
          sent.push(new Headers(init?.headers).get('authorization') ?? undefined);
        return fetch(input, init);
      };
      await client.connect(
        new StreamableHTTPClientTransport(server.url, {
          authProvider: provider,
          fetch: fetchWithLog,
        }),
      );
      try {
        expect(provider.tokens()?.access_token).toBeDefined();
        const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
        expect(simple.isError).toBeFalsy();
        const transfer = await client.callTool({ name: 'transfer_funds', arguments: TRANSFER });
        expect(transfer.content).toEqual([{ type: 'text', text: 'Transferred 12.50 to bob' }]);
        // Every request after the first 401 carried the token (each round is authorized anew).
        const afterSignIn = sent.slice(sent.indexOf(undefined) + 1);
        expect(afterSignIn.length).toBeGreaterThan(2);
        expect(
          afterSignIn.every((header) => header === `Bearer ${provider.tokens()?.access_token}`),
        ).toBe(true);
      } finally {
        await client.close();
      }
    },
  );
});
