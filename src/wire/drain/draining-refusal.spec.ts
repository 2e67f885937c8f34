import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseWhileDraining } from './draining-refusal';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { jsonrpc: string; id: unknown; error: { code: number; message: string; data: unknown } };
}

describe('refuseWhileDraining', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer(refuseWhileDraining);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  /** Sends `sent` of a body declared `declared` bytes long, and reads the answer. */
  function send(method: string, sent: string, declared = Buffer.byteLength(sent)): Promise<Answer> {
    return new Promise((done, fail) => {
      const outgoing = request({
        host: '127.0.0.1',
        port,
        method,
        path: '/mcp',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(declared) },
      });
      outgoing.once('response', (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.once('end', () => {
          outgoing.destroy();
          done({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: JSON.parse(text) as Answer['body'],
          });
        });
      });
      outgoing.once('error', fail);
      if (Buffer.byteLength(sent) === declared) outgoing.end(sent);
      else outgoing.write(sent);
    });
  }

  const busy = {
    code: -32000,
    message: 'Server busy: the server is shutting down',
    data: { retryAfterMs: 1000 },
  };

  it('answers a JSON-RPC request 503 with Retry-After, Connection: close and its own id', async () => {
    const answer = await send('POST', '{"jsonrpc":"2.0","id":"call-7","method":"tools/call"}');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: 'call-7', error: busy });
  });

  it.each([
    ['a GET (a session stream)', 'GET', ''],
    ['a notification', 'POST', '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
    ['a response to a server request', 'POST', '{"jsonrpc":"2.0","id":3,"result":{}}'],
    ['a batch', 'POST', '[{"jsonrpc":"2.0","id":4,"method":"ping"}]'],
    ['a body that is not JSON', 'POST', 'id=5&method=ping'],
    ['an id that is an object', 'POST', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'],
  ])('answers %s with the same refusal and a null id', async (_, method, body) => {
    const answer = await send(method, body);
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: busy });
  });

  it('answers a body larger than the id window with a null id', async () => {
    const padding = 'x'.repeat(1_000_000);
    const answer = await send(
      'POST',
      `{"jsonrpc":"2.0","id":6,"method":"ping","pad":"${padding}"}`,
    );
    expect(answer.status).toBe(503);
    expect(answer.body.id).toBeNull();
  });

  it('answers a body that stalls all the same', async () => {
    const answer = await send('POST', '{"jsonrpc":"2.0","id":8,', 200);
    expect(answer.status).toBe(503);
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: busy });
  });
});
