import request from 'supertest';
import { McpModule, type McpModuleOptions } from '../../../src/index';
import { CatalogModule } from '../../fixtures/catalog.fixtures';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rpcBody, rpcHeaders } from '../../utils/mcp';
import { expectErrorResponse } from '../../utils/expect-rpc';
import { serverForSuite } from '../../utils/suite-server';

const MAX_BODY_BYTES = 2048;

describe.each(ALL_ADAPTERS)('MCP HTTP transport over %s', (adapter) => {
  const server = serverForSuite(() =>
    startTestServer(adapter, {
      imports: [
        McpModule.forRoot({ http: { maxRequestBodyBytes: MAX_BODY_BYTES } }),
        CatalogModule,
      ],
    }),
  );

  const post = (headers: Record<string, string>) =>
    request(server.origin).post('/mcp').set(headers);
  /** `server/discover` with `headers` on top of the protocol's own. */
  const discoverWith = (headers: Record<string, string>) =>
    post({ ...rpcHeaders('server/discover'), ...headers }).send(rpcBody('server/discover'));

  it('answers a well-formed request with 200 and resultType "complete"', async () => {
    const response = await post(rpcHeaders('tools/call', 'ping')).send(
      rpcBody('tools/call', { name: 'ping', arguments: {} }, 7),
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { resultType: 'complete', content: [{ type: 'text', text: 'pong' }] },
    });
  });

  it('answers malformed JSON with HTTP 400 and -32700', async () => {
    const response = await post(rpcHeaders('tools/list')).send('{"jsonrpc":"2.0","id":1,"method":');
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('answers an oversized body with HTTP 413 and a JSON-RPC error', async () => {
    const body = rpcBody('tools/call', {
      name: 'add_note',
      arguments: { text: 'x'.repeat(MAX_BODY_BYTES) },
    });
    const response = await post(rpcHeaders('tools/call', 'add_note')).send(body);
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Request body too large',
        data: { maxBytes: MAX_BODY_BYTES },
      },
    });
  });

  it('refuses a foreign Host header with HTTP 403 and a JSON-RPC error body', async () => {
    const response = await discoverWith({ Host: 'evil.example.com' });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('Host') },
    });
  });

  it('refuses a foreign Origin header with HTTP 403', async () => {
    const response = await discoverWith({ Origin: 'http://evil.example.com' });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({
      code: -32600,
      message: expect.stringContaining('Origin'),
    });
  });

  it('leaves routes outside the endpoint to the application', async () => {
    const response = await request(server.origin).get('/not-mcp');
    expect(response.status).toBe(404);
  });
});

describe.each(ALL_ADAPTERS)('MCP HTTP transport bounds over %s', (adapter) => {
  const server = serverForSuite(() =>
    startTestServer(adapter, { imports: [McpModule.forRoot({}), CatalogModule] }),
  );

  /** `add_note` with an `extra` argument (stripped by the ValidationPipe) written as raw JSON. */
  const noteWithExtra = (id: number | string, extraJson: string) =>
    request(server.origin)
      .post('/mcp')
      .set(rpcHeaders('tools/call', 'add_note'))
      .send(
        rpcBody('tools/call', { name: 'add_note', arguments: { text: 'hi', extra: '@x' } }, id)
          .split('"@x"')
          .join(extraJson),
      );

  it('refuses a number of 1,025 digits with HTTP 400 and -32602, echoing the request id', async () => {
    const response = await noteWithExtra('long-number', '9'.repeat(1025));
    expectErrorResponse(response, 400, 'long-number', {
      code: -32602,
      message: 'Invalid params: a number is too long or its exponent too large',
    });
  });

  it('accepts a number of 1,024 digits', async () => {
    const response = await noteWithExtra(41, '9'.repeat(1024));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: 41,
      result: { content: [{ text: 'noted: hi (AddNoteDto)' }] },
    });
  });

  it('refuses a body nested 65 deep with HTTP 400 and -32700', async () => {
    // The envelope and arguments objects are 3 levels; the arrays add the rest.
    const response = await noteWithExtra(42, `${'['.repeat(62)}${']'.repeat(62)}`);
    expectErrorResponse(response, 400, null, {
      code: -32700,
      message: 'Parse error: JSON nested too deeply',
    });
  });

  it('accepts a body nested 64 deep', async () => {
    const response = await noteWithExtra(43, `${'['.repeat(61)}${']'.repeat(61)}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: 43,
      result: { content: [{ text: 'noted: hi (AddNoteDto)' }] },
    });
  });
});

describe.each(ALL_ADAPTERS)('MCP DNS-rebinding options over %s', (adapter) => {
  /** The catalog on a module whose `http` options are `http`. */
  const catalogWith = (http: NonNullable<McpModuleOptions['http']>) =>
    serverForSuite(() =>
      startTestServer(adapter, { imports: [McpModule.forRoot({ http }), CatalogModule] }),
    );
  const listed = catalogWith({
    allowedHosts: ['mcp.example.com'],
    allowedOrigins: ['https://app.example.com'],
  });
  const unprotected = catalogWith({ disableDnsRebindingProtection: true });

  /** `server/discover` on `target` with extra headers (supertest sends `Host` as given). */
  const discover = (target: TestServer, headers: Record<string, string>) =>
    request(target.origin)
      .post('/mcp')
      .set({ ...rpcHeaders('server/discover'), ...headers })
      .send(rpcBody('server/discover'));

  it.each(['mcp.example.com', 'mcp.example.com:8443', 'MCP.Example.com:8443'])(
    'accepts the listed host as Host: %s',
    async (host) => {
      const response = await discover(listed, { Host: host });
      expect(response.status).toBe(200);
      expect(response.body.result).toBeDefined();
    },
  );

  it('still accepts local hosts next to the listed ones', async () => {
    const response = await discover(listed, {});
    expect(response.status).toBe(200);
  });

  it.each(['evil.example.com', 'mcp.example.com.evil.example.com', 'evil.example.com:8443'])(
    'still refuses Host: %s with HTTP 403',
    async (host) => {
      const response = await discover(listed, { Host: host });
      expectErrorResponse(response, 403, null, {
        code: -32600,
        message: 'Forbidden: Host header not allowed by http.allowedHosts',
        data: { option: 'http.allowedHosts' },
      });
    },
  );

  it('accepts the listed Origin', async () => {
    const response = await discover(listed, { Origin: 'https://app.example.com' });
    expect(response.status).toBe(200);
    expect(response.body.result).toBeDefined();
  });

  it.each([
    'http://app.example.com',
    'https://app.example.com.evil.example.com',
    'https://evil.example.com',
  ])('refuses Origin: %s with HTTP 403', async (origin) => {
    const response = await discover(listed, { Origin: origin });
    expect(response.status).toBe(403);
    expect(response.body.error).toEqual({
      code: -32600,
      message: 'Forbidden: Origin header not allowed by http.allowedOrigins',
      data: { option: 'http.allowedOrigins' },
    });
  });

  it('accepts a foreign Host and Origin when the protection is disabled', async () => {
    const response = await discover(unprotected, {
      Host: 'evil.example.com',
      Origin: 'https://evil.example.com',
    });
    expect(response.status).toBe(200);
    expect(response.body.result).toBeDefined();
  });
});
