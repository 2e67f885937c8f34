// A real OAuth 2.1 authorization server for the e2e suites (oidc-provider, ESM only, so it runs as
// a child process): client credentials with RFC 8707 resource indicators, JWT access tokens for
// the resource named in the request, RFC 7662 introspection, DPoP-bound tokens (RFC 9449). It listens on 127.0.0.1, port 0, and
// prints one JSON line: { "issuer": "http://127.0.0.1:<port>" }.
import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import Provider from 'oidc-provider';

const SCOPES = ['mcp:tools', 'payments:write'];
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'as-key-1', use: 'sig', alg: 'RS256' };

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

/** Clients, by id: what each may ask for, and `short` ones get tokens that live 1 s. */
const CLIENTS = [
  { client_id: 'alice', scope: 'mcp:tools' },
  { client_id: 'admin', scope: SCOPES.join(' ') },
  { client_id: 'short', scope: SCOPES.join(' ') },
  { client_id: 'opaque', scope: SCOPES.join(' ') },
  { client_id: 'mcp-server' },
].map((client) => ({
  ...client,
  client_secret: `${client.client_id}-secret`,
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  token_endpoint_auth_method: 'client_secret_basic',
}));

const provider = new Provider(issuer, {
  clients: CLIENTS,
  scopes: SCOPES,
  jwks: { keys: [jwk] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    // RFC 9449: a token request with a DPoP proof gets a token bound to its key (cnf.jkt).
    dPoP: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A client that omits `resource` gets a token for no resource in particular (no `aud`).
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource, client) => ({
        scope: SCOPES.join(' '),
        audience: resource,
        accessTokenTTL: client.clientId === 'short' ? 1 : 600,
        accessTokenFormat: client.clientId === 'opaque' ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.proxy = false;
server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
