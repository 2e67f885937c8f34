import request from 'supertest';
import { McpModule } from '../src/index';
import { CatalogModule } from './fixtures/catalog.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from './utils/bootstrap';
import { rpcBody, rpcHeaders } from './utils/mcp';

const MAX_BODY_BYTES = 2048;

describe.each(ADAPTERS)('MCP HTTP transport over %s', (adapter) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(adapter, {
      imports: [McpModule.forRoot({ maxRequestBodyBytes: MAX_BODY_BYTES }), CatalogModule],
    });
  });

  afterAll(() => server?.close());

  const post = (headers: Record<string, string>) =>
    request(server.origin).post('/mcp').set(headers);

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
    const response = await post({
      ...rpcHeaders('server/discover'),
      Host: 'evil.example.com',
    }).send(rpcBody('server/discover'));
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('Host') },
    });
  });

  it('refuses a foreign Origin header with HTTP 403', async () => {
    const response = await post({
      ...rpcHeaders('server/discover'),
      Origin: 'http://evil.example.com',
    }).send(rpcBody('server/discover'));
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
