import type { Client } from '@modelcontextprotocol/client';
import { ExpenseLedger } from '../../../sample-app/src/expenses/expense-ledger.service';
import { newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { formAnsweringClient, resultText, type RawRoundResponse } from '../../utils/mcp';
import { APPROVE, approveExpenseRound } from '../../utils/sample-calls';
import { INVALID_STATE } from '../../utils/expect-rpc';

const EXPENSE = { amount: '120.50', description: 'Team lunch' };

describe.each(ADAPTERS)('sample app: approve_expense over %s', (adapter) => {
  let server: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startSampleApp(adapter, { MCP_KEYRING: newKeyring(['k1']).json });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await server?.close();
  });

  const approved = () => server.app.get(ExpenseLedger).count();
  const call = (
    user: string,
    requestState?: string,
    inputResponses?: unknown,
  ): Promise<RawRoundResponse> =>
    approveExpenseRound(server.url, user, EXPENSE, requestState, inputResponses);
  const handleOf = (response: RawRoundResponse): string => {
    const state = response.body.result?.requestState;
    if (typeof state !== 'string') throw new Error(`expected a handle, got ${response.text}`);
    return state;
  };

  it('records the expense once the official client approves it', async () => {
    const before = approved();
    const { client, asked } = await formAnsweringClient(
      server.url,
      { action: 'accept', content: { approve: true } },
      { Authorization: 'Bearer alice' },
    );
    clients.push(client);
    const result = await client.callTool({ name: 'approve_expense', arguments: EXPENSE });
    expect(result.content).toEqual([
      { type: 'text', text: `Expense #${before + 1} approved: 120.50 for "Team lunch"` },
    ]);
    expect(asked).toEqual(['Approve 120.50 for "Team lunch"?']);
    expect(approved()).toBe(before + 1);
  });

  it('asks again under a new handle when a retry brings no answer; only the newest handle works', async () => {
    const first = handleOf(await call('alice'));
    const second = handleOf(await call('alice', first));
    expect(second).not.toBe(first);
    expect((await call('alice', first, APPROVE)).body.error).toEqual(INVALID_STATE);
    const before = approved();
    expect(resultText(await call('alice', second, APPROVE))).toMatch(/approved: 120\.50/);
    expect((await call('alice', second, APPROVE)).body.error).toEqual(INVALID_STATE);
    expect(approved()).toBe(before + 1);
  });

  it("refuses bob's use of alice's handle and leaves it to alice", async () => {
    const handle = handleOf(await call('alice'));
    const before = approved();
    expect((await call('bob', handle, APPROVE)).body.error).toEqual(INVALID_STATE);
    expect(approved()).toBe(before);
    expect(resultText(await call('alice', handle, APPROVE))).toMatch(/approved/);
  });

  it('refuses a malformed answer without spending the handle', async () => {
    const handle = handleOf(await call('alice'));
    const bad = await call('alice', handle, {
      approval: { action: 'accept', content: { approve: 'yes' } },
    });
    expect(bad.body.error?.code).toBe(-32602);
    expect(resultText(await call('alice', handle, APPROVE))).toMatch(/approved/);
  });

  it('records nothing when the user declines', async () => {
    const handle = handleOf(await call('alice'));
    const before = approved();
    const declined = await call('alice', handle, { approval: { action: 'decline' } });
    expect(resultText(declined)).toBe('Expense not approved: 120.50 for "Team lunch"');
    expect(approved()).toBe(before);
  });
});
