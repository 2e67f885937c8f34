import {
  ClientCredentialsProvider,
  Client,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { Injectable, Module } from '@nestjs/common';
import { generateKeyPair, SignJWT } from 'jose';
import { McpTool } from '../../../src/index';
import { Payments, accessApp, startIntrospectingApp, payRound } from './access.fixtures';
import { CapturingLogger } from '../../fixtures/sample-app';
import { startAuthorizationServer } from '../../utils/authorization-server';
import { ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { expectInputRequired, expectNoSideEffects } from '../../utils/expect-rpc';
import { PROTOCOL_VERSION, rawRound, rawToolCall } from '../../utils/mcp';
import { initializeMessage, sessionPost, sessionStreamStatus } from '../../utils/session-clients';
import { sleep } from '../../utils/wait';
import { forSuite } from '../../utils/suite-resource';
import { serverForSuite } from '../../utils/suite-server';

/*
 * The built-in OAuth 2.1 resource server against a real authorization server (oidc-provider, in
 * a child process on 127.0.0.1) and the official v2 client's OAuth support: 401 → the metadata →
 * a token → a sealed input flow; the step-up; bad, expired and foreign tokens; a scope lost
 * between rounds; lists per token. Both adapters, the fast path and the SDK path.
 */

const FORM = { elicitation: { form: {} } };
/** The `algs` of the DPoP challenge every refusal carries beside the Bearer one (DPoP is allowed by default). */
const ALGS = 'algs="ES256 RS256 PS256 EdDSA"';

const authorization = forSuite(startAuthorizationServer, (server) => server.stop());

describe.each(ADAPTERS)('an OAuth protected resource over %s', (adapter) => {
  const servers: Record<'fast' | 'sdk', TestServer> = {} as never;

  beforeAll(async () => {
    for (const path of ['fast', 'sdk'] as const)
      servers[path] = await startTestServer(adapter, {
        imports: [
          accessApp(path === 'fast', {
            resourceServer: { issuer: authorization.issuer, clockToleranceSeconds: 0 },
          }),
        ],
      });
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server?.close();
  });

  describe.each(['fast', 'sdk'] as const)('on the %s path', (path) => {
    const server = () => servers[path];
    const resource = () => server().url.href;
    const metadataUrl = () => `${server().origin}/.well-known/oauth-protected-resource/mcp`;
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

    it('serves the protected-resource metadata at the path-suffixed URL and the root form', async () => {
      for (const url of [
        metadataUrl(),
        `${server().origin}/.well-known/oauth-protected-resource`,
      ]) {
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
        expect(await response.json()).toEqual({
          resource: resource(),
          authorization_servers: [authorization.issuer],
          scopes_supported: ['payments:write'],
          bearer_methods_supported: ['header'],
          dpop_signing_alg_values_supported: ['ES256', 'RS256', 'PS256', 'EdDSA'],
        });
      }
    });

    it('challenges every request without a token with 401 and the metadata URL, lists included (requireToken by default)', async () => {
      const pay = await rawToolCall(server().url, 'pay', {}, { capabilities: FORM });
      expect(pay.status).toBe(401);
      // The scopes of the operation called are named, so the client asks for them at once.
      expect(pay.headers['www-authenticate']).toBe(
        `Bearer scope="payments:write", resource_metadata="${metadataUrl()}", ` +
          `DPoP scope="payments:write", resource_metadata="${metadataUrl()}", ${ALGS}`,
      );
      expect(pay.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
      for (const response of [
        await rawToolCall(server().url, 'public_echo', {}),
        await rawRound(server().url, 'tools/list', {}),
        await rawRound(server().url, 'prompts/list', {}),
        await rawRound(server().url, 'resources/list', {}),
        await rawRound(server().url, 'server/discover', {}),
      ]) {
        expect(response.status).toBe(401);
        // Bearer and, since DPoP is allowed by default, DPoP (RFC 9449 §7.1).
        expect(response.headers['www-authenticate']).toBe(
          `Bearer resource_metadata="${metadataUrl()}", DPoP resource_metadata="${metadataUrl()}", ${ALGS}`,
        );
        expect(response.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
      }
    });

    it('lets the official client sign in from the 401 and complete a sealed input flow', async () => {
      const provider = new ClientCredentialsProvider({
        clientId: 'admin',
        clientSecret: 'admin-secret',
        scope: 'mcp:tools payments:write',
        expectedIssuer: authorization.issuer,
      });
      const client = new Client(
        { name: 'oauth-e2e', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } }, capabilities: FORM },
      );
      const asked: string[] = [];
      client.setRequestHandler('elicitation/create', (request) => {
        asked.push((request.params as { message: string }).message);
        return { action: 'accept', content: { ok: true } };
      });
      await client.connect(
        new StreamableHTTPClientTransport(server().url, { authProvider: provider }),
      );
      try {
        const result = await client.callTool({ name: 'pay', arguments: {} });
        expect(asked).toEqual(['Pay?']);
        expect(result.content).toEqual([{ type: 'text', text: 'paid' }]);
        expect(provider.tokens()?.access_token).toBeDefined();
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain('pay');
      } finally {
        await client.close();
      }
    });

    it('answers a token without the scope with 403 insufficient_scope naming it', async () => {
      const token = await authorization.token('alice', {
        scope: 'mcp:tools',
        resource: resource(),
      });
      const response = await payRound(server().url, bearer(token));
      expect(response.status).toBe(403);
      expect(response.headers['www-authenticate']).toBe(
        `Bearer error="insufficient_scope", error_description="The operation needs more scopes", scope="payments:write", resource_metadata="${metadataUrl()}", ` +
          `DPoP scope="payments:write", resource_metadata="${metadataUrl()}", ${ALGS}`,
      );
    });

    it.each([
      ['for another resource', 'The access token was not issued for this resource'],
      ['expired', 'The access token expired'],
      ['signed by an unknown key', 'The access token is signed by an unknown key'],
      ['not a JWT', 'The access token is malformed'],
    ])('refuses a token %s with 401 invalid_token, on a list too', async (kind, description) => {
      const token = await badToken(kind);
      for (const response of [
        await rawToolCall(server().url, 'public_echo', {}, { headers: bearer(token) }),
        await rawRound(server().url, 'tools/list', {}, { headers: bearer(token) }),
      ]) {
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe(
          `Bearer error="invalid_token", error_description="${description}", resource_metadata="${metadataUrl()}", ` +
            `DPoP resource_metadata="${metadataUrl()}", ${ALGS}`,
        );
        expect(response.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
        expect(response.text).not.toContain(token);
      }
    });

    async function badToken(kind: string): Promise<string> {
      if (kind === 'for another resource')
        return authorization.token('admin', {
          scope: 'mcp:tools',
          resource: 'http://127.0.0.1:1/mcp',
        });
      if (kind === 'expired') {
        const token = await authorization.token('short', {
          scope: 'mcp:tools',
          resource: resource(),
        });
        await sleep(2_100);
        return token;
      }
      if (kind === 'signed by an unknown key') {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT({ scope: 'mcp:tools payments:write', client_id: 'admin' })
          .setProtectedHeader({ alg: 'RS256', kid: 'not-the-servers' })
          .setIssuer(authorization.issuer)
          .setAudience(resource())
          .setSubject('admin')
          .setExpirationTime('5m')
          .sign(privateKey);
      }
      return 'not-a-jwt';
    }

    it('ends a flow whose token lost the scope between rounds with the step-up, and pays nothing', async () => {
      const full = await authorization.token('admin', {
        scope: 'mcp:tools payments:write',
        resource: resource(),
      });
      const first = await payRound(server().url, bearer(full));
      expectInputRequired(first, { confirm: { method: 'elicitation/create' } });
      const reduced = await authorization.token('admin', {
        scope: 'mcp:tools',
        resource: resource(),
      });
      const payments = server().app.get(Payments);
      const retry = await expectNoSideEffects(
        () => payments.made.length,
        () => payRound(server().url, bearer(reduced), first),
      );
      expect(retry.status).toBe(403);
      expect(retry.headers['www-authenticate']).toContain('error="insufficient_scope"');
    });

    it('lists per token: alice does not see the scoped tool, the admin does', async () => {
      const names = async (headers: Record<string, string>) => {
        const response = await rawRound(server().url, 'tools/list', {}, { headers });
        return (response.body.result?.tools as { name: string }[]).map((tool) => tool.name);
      };
      const alice = await authorization.token('alice', {
        scope: 'mcp:tools',
        resource: resource(),
      });
      const admin = await authorization.token('admin', {
        scope: 'mcp:tools payments:write',
        resource: resource(),
      });
      expect(await names(bearer(alice))).not.toContain('pay');
      expect(await names(bearer(admin))).toContain('pay');
    });
  });
});

describe.each(ADAPTERS)('a 2025-era client of the protected resource over %s', (adapter) => {
  const server = serverForSuite(() =>
    startTestServer(adapter, {
      imports: [accessApp(true, { resourceServer: { issuer: authorization.issuer } })],
    }),
  );

  it('gets the 401 challenge for a bad token before its session starts, and is served with a good one', async () => {
    const send = (authorization: string, message: Record<string, unknown>, session?: string) =>
      sessionPost(server.url, message, session, { authorization });
    const initialize = initializeMessage({}, 1);
    const refused = await send('Bearer not-a-jwt', initialize);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    const token = await authorization.token('admin', {
      scope: 'mcp:tools payments:write',
      resource: server.url.href,
    });
    const opened = await send(`Bearer ${token}`, initialize);
    expect(opened.status).toBe(200);
    const session = opened.sessionId;
    expect(session).toBeTruthy();
    const served = await send(
      `Bearer ${token}`,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      session as string,
    );
    expect(served.status).toBe(200);
    expect(served.text).toContain('"pay"');
    // The session's next request with a bad token is challenged too, not served.
    const later = await send(
      'Bearer not-a-jwt',
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
      session as string,
    );
    expect(later.status).toBe(401);
    // Its GET stream is the caller's too: the same token opens it, none finds no session.
    const stream = (authorization?: string) =>
      sessionStreamStatus(
        server.url,
        session as string,
        authorization === undefined ? {} : { authorization },
      );
    expect(await stream(`Bearer ${token}`)).toBe(200);
    expect(await stream()).toBe(401);
    expect(await stream('Bearer not-a-jwt')).toBe(401);
    // No session starts without a token either.
    const anonymous = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(anonymous.headers.get('mcp-session-id')).toBeNull();
    // Its end too: DELETE without a token, or with a bad one, is challenged and ends nothing.
    const end = (authorization?: string) =>
      fetch(server.url, {
        method: 'DELETE',
        headers: {
          'mcp-session-id': session as string,
          'mcp-protocol-version': '2025-11-25',
          ...(authorization !== undefined && { authorization }),
        },
      });
    for (const refused of [await end(), await end('Bearer not-a-jwt')]) {
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    }
    const still = await send(
      `Bearer ${token}`,
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} },
      session as string,
    );
    expect(still.status).toBe(200);
    expect((await end(`Bearer ${token}`)).status).toBe(200);
  });
});

/** A status tool anyone may call, even where the resource server requires a token. */
@Injectable()
class PublicStatus {
  @McpTool({ name: 'status', description: 'Is the service up?', public: true })
  status(): string {
    return 'up';
  }
}

@Module({ providers: [PublicStatus] })
class PublicStatusModule {}

describe.each(ADAPTERS)('callers without a token over %s', (adapter) => {
  let required: TestServer;
  let optional: TestServer;
  const requiredLog = new CapturingLogger();
  const optionalLog = new CapturingLogger();
  beforeAll(async () => {
    required = await startTestServer(
      adapter,
      {
        imports: [
          accessApp(
            true,
            { resourceServer: { issuer: authorization.issuer } },
            { imports: [PublicStatusModule] },
          ),
        ],
      },
      '/mcp',
      { logger: requiredLog },
    );
    optional = await startTestServer(
      adapter,
      {
        imports: [
          accessApp(false, {
            resourceServer: { issuer: authorization.issuer, requireToken: false },
          }),
        ],
      },
      '/mcp',
      { logger: optionalLog },
    );
  });
  afterAll(async () => {
    await required?.close();
    await optional?.close();
  });

  it('may call a public operation and list the public ones only; anything else is challenged', async () => {
    const status = await rawToolCall(required.url, 'status', {});
    expect(status.status).toBe(200);
    expect(status.body.result?.content).toEqual([{ type: 'text', text: 'up' }]);
    const listed = await rawRound(required.url, 'tools/list', {});
    expect((listed.body.result?.tools as { name: string }[]).map((tool) => tool.name)).toEqual([
      'status',
    ]);
    // A forged cursor naming an operation such a caller does not see is as invalid as an unknown one.
    const cursor = (name: string) => Buffer.from(`tools:${name}`).toString('base64url');
    for (const name of ['public_echo', 'no_such_tool']) {
      const forged = await rawRound(required.url, 'tools/list', { cursor: cursor(name) });
      expect(forged.body.error).toEqual({ code: -32602, message: 'Invalid cursor' });
    }
    const other = await rawToolCall(required.url, 'public_echo', {});
    expect(other.status).toBe(401);
    expect(other.headers['www-authenticate']).toContain('resource_metadata=');
    const token = await authorization.token('admin', {
      scope: 'mcp:tools payments:write',
      resource: required.url.href,
    });
    const signedIn = await rawRound(
      required.url,
      'tools/list',
      {},
      {
        headers: { Authorization: `Bearer ${token}` },
      },
    );
    expect((signedIn.body.result?.tools as { name: string }[]).map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['status', 'public_echo', 'pay']),
    );
  });

  it('says requireToken: false is the insecure choice in one startup warning, and nothing by default', () => {
    const insecure = (log: CapturingLogger) =>
      log.lines.filter((line) => line.level === 'warn' && line.text.includes('requireToken'));
    expect(insecure(optionalLog)).toEqual([
      {
        level: 'warn',
        text: expect.stringContaining(
          'requireToken is false: requests without a bearer token are served anonymously (an insecure choice',
        ),
      },
    ]);
    expect(insecure(requiredLog)).toEqual([]);
  });

  it('with requireToken: false (the insecure choice) goes on to the guards: a scoped tool challenges with its scope, lists hide it', async () => {
    const metadataUrl = `${optional.origin}/.well-known/oauth-protected-resource/mcp`;
    const response = await rawToolCall(optional.url, 'pay', {}, { capabilities: FORM });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      `Bearer scope="payments:write", resource_metadata="${metadataUrl}", ` +
        `DPoP scope="payments:write", resource_metadata="${metadataUrl}", ${ALGS}`,
    );
    const listed = await rawRound(optional.url, 'tools/list', {});
    expect(listed.status).toBe(200);
    expect(
      (listed.body.result?.tools as { name: string }[]).map((tool) => tool.name),
    ).not.toContain('pay');
  });
});

describe('opaque tokens by introspection', () => {
  const server = serverForSuite(() => startIntrospectingApp(authorization));

  it('accepts an active token for this resource and refuses one it does not know', async () => {
    const token = await authorization.token('opaque', {
      scope: 'mcp:tools payments:write',
      resource: server.url.href,
    });
    const ok = await payRound(server.url, { Authorization: `Bearer ${token}` });
    expectInputRequired(ok, { confirm: { method: 'elicitation/create' } });
    const unknown = await rawToolCall(
      server.url,
      'public_echo',
      {},
      {
        headers: { Authorization: 'Bearer opaque-token-nobody-issued' },
      },
    );
    expect(unknown.status).toBe(401);
    expect(unknown.headers['www-authenticate']).toContain('The access token is not active');
  });
});
