import type { TestServer } from './utils/bootstrap';
import { startAuthorizationServer, type AuthorizationServer } from './utils/authorization-server';
import { expectInputRequired } from './utils/expect-rpc';
import { rawToolCall } from './utils/mcp';

/*
 * The sample app as an OAuth protected resource (SAMPLE_AUTH=oauth, OAUTH_ISSUER, OAUTH_AUDIENCE)
 * in front of a real authorization server: transfer_funds needs payments:write, which the
 * metadata advertises. The variables are read when the sample's modules load, so they are set
 * before it is required.
 */

const AUDIENCE = 'https://mcp.example.test/mcp';
const TRANSFER = { amount: '12.50', to: 'bob' };
const FORM = { elicitation: { form: {} } };

let as: AuthorizationServer;
let server: TestServer;
const saved = { ...process.env };

beforeAll(async () => {
  as = await startAuthorizationServer();
  Object.assign(process.env, {
    SAMPLE_AUTH: 'oauth',
    OAUTH_ISSUER: as.issuer,
    OAUTH_AUDIENCE: AUDIENCE,
  });
  // The sample's modules read SAMPLE_AUTH when they load: required only now that it is set.
  const sample: typeof import('./fixtures/sample-app') =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('./fixtures/sample-app');
  const { startSampleApp, newKeyring } = sample;
  server = await startSampleApp('express', { MCP_KEYRING: newKeyring(['k1']).json });
});
afterAll(async () => {
  await server?.close();
  await as?.stop();
  for (const key of ['SAMPLE_AUTH', 'OAUTH_ISSUER', 'OAUTH_AUDIENCE'])
    if (saved[key] === undefined) delete process.env[key];
});

it('advertises payments:write for the audience it is configured with', async () => {
  const response = await fetch(`${server.origin}/.well-known/oauth-protected-resource/mcp`);
  expect(await response.json()).toEqual({
    resource: AUDIENCE,
    authorization_servers: [as.issuer],
    scopes_supported: ['payments:write'],
    bearer_methods_supported: ['header'],
  });
});

it('asks for the approval with a payments:write token, steps up without it, challenges without a token', async () => {
  const full = await as.token('admin', { scope: 'mcp:tools payments:write', resource: AUDIENCE });
  const ok = await rawToolCall(server.url, 'transfer_funds', TRANSFER, {
    capabilities: FORM,
    headers: { Authorization: `Bearer ${full}` },
  });
  expectInputRequired(ok, { approval: { method: 'elicitation/create' } });
  const alice = await as.token('alice', { scope: 'mcp:tools', resource: AUDIENCE });
  const stepUp = await rawToolCall(server.url, 'transfer_funds', TRANSFER, {
    capabilities: FORM,
    headers: { Authorization: `Bearer ${alice}` },
  });
  expect(stepUp.status).toBe(403);
  expect(stepUp.headers['www-authenticate']).toContain('scope="payments:write"');
  const anonymous = await rawToolCall(server.url, 'transfer_funds', TRANSFER, {
    capabilities: FORM,
  });
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers['www-authenticate']).toBe(
    'Bearer scope="payments:write", resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"',
  );
});
