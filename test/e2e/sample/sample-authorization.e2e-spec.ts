import { newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { rawRound, rawToolCall } from '../../utils/mcp';
import { serverForSuite } from '../../utils/suite-server';

/*
 * The sample app in its default (demo authentication) mode: the role-guarded create_ticket
 * challenges a caller nobody signed in as, is hidden from a signed-in caller without the role,
 * and is rate-limited per caller (30 a minute) — sample-app/README.md names all three.
 */

const TICKET = { title: 'Printer on fire', priority: 'high' };
const ALICE = { Authorization: 'Bearer alice' };
const BOB = { Authorization: 'Bearer bob' };

const toolNames = async (server: TestServer, headers: Record<string, string>) => {
  const response = await rawRound(server.url, 'tools/list', {}, { headers });
  return (response.body.result?.tools as { name: string }[]).map((tool) => tool.name);
};

describe.each(ADAPTERS)('the sample app authorization over %s', (adapter) => {
  const server = serverForSuite(() =>
    startSampleApp(adapter, { MCP_KEYRING: newKeyring(['k1']).json }),
  );

  it('challenges create_ticket from nobody with 401 and WWW-Authenticate, and leaves it out of their list', async () => {
    const response = await rawToolCall(server.url, 'create_ticket', TICKET);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.body.error).toEqual({ code: -32001, message: 'Unauthorized' });
    expect(await toolNames(server, {})).not.toContain('create_ticket');
  });

  it('hides create_ticket from bob, who has no agent role, and answers his call as unknown', async () => {
    expect(await toolNames(server, BOB)).not.toContain('create_ticket');
    expect(await toolNames(server, BOB)).toContain('transfer_funds');
    const response = await rawToolCall(server.url, 'create_ticket', TICKET, { headers: BOB });
    expect(response.body.error).toEqual({
      code: -32602,
      message: 'Unknown tool: create_ticket',
      data: { name: 'create_ticket' },
    });
  });

  it('lists create_ticket for alice and lets her open 30 tickets a minute, then answers 429', async () => {
    expect(await toolNames(server, ALICE)).toContain('create_ticket');
    for (let i = 0; i < 30; i++) {
      const ok = await rawToolCall(server.url, 'create_ticket', TICKET, { headers: ALICE });
      expect(ok.status).toBe(200);
    }
    const over = await rawToolCall(server.url, 'create_ticket', TICKET, { headers: ALICE });
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.body.error).toMatchObject({
      code: -32029,
      data: { retryAfterMs: expect.any(Number) },
    });
    // Keyed per caller: another agent-less caller is refused by the role, not the limit.
    const bob = await rawToolCall(server.url, 'create_ticket', TICKET, { headers: BOB });
    expect(bob.status).toBe(200);
  });
});
