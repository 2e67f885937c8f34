import type { Client } from '@modelcontextprotocol/client';
import { ExpenseLedger } from '../../../sample-app/src/expenses/expense-ledger.service';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { CapturingLogger, newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { connectClient, freshId, rawToolCall, resultText } from '../../utils/mcp';
import { startRedisServer } from '../../utils/redis-server';
import { APPROVE, TRANSFER, approveExpenseRound } from '../../utils/sample-calls';
import { serverForSuite } from '../../utils/suite-server';
import { SuiteScope } from '../../utils/suite-resource';

const FORM = { elicitation: {} };

async function transfers(server: TestServer): Promise<number> {
  return (
    JSON.parse(resultText(await rawToolCall(server.url, 'side_effects', {}))) as {
      transfers: number;
    }
  ).transfers;
}

describe.each(ADAPTERS)('the sample app with MCP_STORE=redis over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  const logger = new CapturingLogger();
  let client: Client | undefined;
  // Declared before the scope below, so the client closes before the apps.
  afterAll(() => client?.close());

  const scope = new SuiteScope();
  const redis = scope.open(startRedisServer, (server) => server.close());
  /** The sample on the suite's Redis. */
  const onRedis = () =>
    serverForSuite(
      () =>
        startSampleApp(
          adapter,
          { MCP_KEYRING: keyring.json, MCP_STORE: 'redis', REDIS_URL: redis.url },
          { logger },
        ),
      scope,
    );
  const east = onRedis();
  const west = onRedis();

  it('lets the official client complete transfer_funds in automatic mode', async () => {
    const before = await transfers(east);
    client = await connectClient(
      east.url,
      {},
      {
        capabilities: FORM,
        inputRequired: { autoFulfill: true },
        setup: (c) =>
          c.setRequestHandler('elicitation/create', () => ({
            action: 'accept',
            content: { approve: true },
          })),
      },
    );
    const result = await client.callTool({ name: 'transfer_funds', arguments: TRANSFER });
    expect(result.content).toEqual([{ type: 'text', text: 'Transferred 12.50 to bob' }]);
    expect(await transfers(east)).toBe(before + 1);
  });

  it('accepts an approval once across instances: a replay on the other instance moves nothing', async () => {
    const first = await rawToolCall(east.url, 'transfer_funds', TRANSFER, { capabilities: FORM });
    const state = first.body.result?.requestState;
    expect(typeof state).toBe('string');
    const retry = (server: TestServer) =>
      rawToolCall(server.url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        id: freshId(),
        requestState: state,
        inputResponses: APPROVE,
      });
    const [eastBefore, westBefore] = [await transfers(east), await transfers(west)];
    expect(resultText(await retry(west))).toBe('Transferred 12.50 to bob');
    expect((await retry(east)).body.error).toEqual({
      code: -32602,
      message: 'Invalid request state',
    });
    expect((await retry(west)).body.error).toEqual({
      code: -32602,
      message: 'Invalid request state',
    });
    expect(await transfers(east)).toBe(eastBefore);
    expect(await transfers(west)).toBe(westBefore + 1);
  });

  it('continues an approve_expense flow on the other instance; its handle works once', async () => {
    const expense = { amount: '42.00', description: 'Taxi' };
    const call = (server: TestServer, requestState?: string, inputResponses?: unknown) =>
      approveExpenseRound(server.url, 'alice', expense, requestState, inputResponses);
    const handle = (await call(east)).body.result?.requestState;
    expect(typeof handle).toBe('string');
    const approvedOnWest = west.app.get(ExpenseLedger).count();
    expect(resultText(await call(west, handle, APPROVE))).toMatch(/approved: 42\.00/);
    expect((await call(east, handle, APPROVE)).body.error).toEqual({
      code: -32602,
      message: 'Invalid request state',
    });
    expect(west.app.get(ExpenseLedger).count()).toBe(approvedOnWest + 1);
  });

  it('refuses to start with MCP_STORE=redis but no REDIS_URL, or an unknown MCP_STORE', async () => {
    await expect(startSampleApp(adapter, { MCP_STORE: 'redis' })).rejects.toThrow(
      'MCP_STORE=redis needs REDIS_URL',
    );
    await expect(startSampleApp(adapter, { MCP_STORE: 'postgres' })).rejects.toThrow(
      'MCP_STORE must be "memory" or "redis"',
    );
  });
});
