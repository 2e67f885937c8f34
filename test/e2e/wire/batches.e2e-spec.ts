import { Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from '../../../src/index';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { PROTOCOL_VERSION, rpcBody } from '../../utils/mcp';
import { openSession } from '../../utils/session-clients';

/*
 * JSON-RPC batches (2025-11-25 and 2026-07-28 both removed them): an array body is answered with
 * one -32600, HTTP 400, before any member runs — whatever the members are (a call with a side
 * effect, a list, a notification, an answer, an initialize), on both eras and both adapters.
 */

@Injectable()
class Ledger {
  readonly entries: string[] = [];

  @McpTool({ name: 'record', description: 'Writes an entry to the ledger' })
  record(): string {
    this.entries.push('entry');
    return 'recorded';
  }
}

@Module({
  imports: [McpModule.forRoot({ allowEphemeralKey: true })],
  providers: [Ledger],
})
class LedgerApp {}

const call = (id: number) =>
  JSON.parse(rpcBody('tools/call', { name: 'record', arguments: {} }, id)) as object;
const legacyCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'record', arguments: {} },
});

/** What each era says (docs/errors.md). */
const BATCH_MESSAGES = {
  modern:
    'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
  legacy: 'Bad Request: JSON-RPC batches are not supported',
};

/** Every kind of member a batch could hold, each batch with the side-effecting call in it. */
const MEMBERS: Record<string, (era: 'modern' | 'legacy') => unknown[]> = {
  'two calls': (era) => (era === 'modern' ? [call(1), call(2)] : [legacyCall(1), legacyCall(2)]),
  'a call and a list': (era) => [
    era === 'modern' ? call(3) : legacyCall(3),
    { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} },
  ],
  'a call and a notification': (era) => [
    era === 'modern' ? call(5) : legacyCall(5),
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
  ],
  'a call and an answer': (era) => [
    era === 'modern' ? call(6) : legacyCall(6),
    { jsonrpc: '2.0', id: 'server-request-1', result: {} },
  ],
  'an initialize and a call': (era) => [
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'b', version: '1' },
      },
    },
    era === 'modern' ? call(8) : legacyCall(8),
  ],
  'one call alone': (era) => [era === 'modern' ? call(9) : legacyCall(9)],
  nothing: () => [],
};

describe.each(ALL_ADAPTERS)('JSON-RPC batches over %s', (adapter) => {
  let server: TestServer;
  let session: string;
  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [LedgerApp] });
    session = await openSession(server.url);
  });
  afterAll(() => server?.close());

  async function post(body: unknown, headers: Record<string, string>) {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  }

  const ERAS = {
    '2026-07-28': {
      era: 'modern',
      headers: {
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'record',
      },
    },
    '2025-11-25, in a session': {
      era: 'legacy',
      headers: () => ({ 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session }),
    },
    '2025-11-25, without a session': {
      era: 'legacy',
      headers: { 'mcp-protocol-version': '2025-11-25' },
    },
  } as const;

  describe.each(Object.keys(ERAS))('on %s', (eraName) => {
    const era = ERAS[eraName as keyof typeof ERAS];
    it.each(Object.keys(MEMBERS))(
      'answers a batch of %s with one -32600, HTTP 400, running nothing',
      async (kind) => {
        const ledger = server.app.get(Ledger);
        const before = ledger.entries.length;
        const headers = typeof era.headers === 'function' ? era.headers() : era.headers;
        const response = await post(MEMBERS[kind](era.era), headers);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message:
              kind === 'nothing' ? 'Bad Request: empty JSON-RPC batch' : BATCH_MESSAGES[era.era],
          },
        });
        expect(Array.isArray(response.body)).toBe(false);
        expect(ledger.entries.length).toBe(before);
      },
    );
  });

  it('still serves the same call sent alone', async () => {
    const ledger = server.app.get(Ledger);
    const before = ledger.entries.length;
    const response = await post(call(10), ERAS['2026-07-28'].headers);
    expect(response.status).toBe(200);
    expect(ledger.entries.length).toBe(before + 1);
  });
});
