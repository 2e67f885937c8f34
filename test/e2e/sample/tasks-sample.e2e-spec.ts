import { newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { rawRound } from '../../utils/mcp';
import { until } from '../../utils/wait';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
type Task = Record<string, unknown> & { status?: string; statusMessage?: string };

describe.each(ADAPTERS)("the sample's export_report task over %s", (adapter) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startSampleApp(adapter, { MCP_KEYRING: newKeyring(['k1']).json });
  });

  afterAll(() => server?.close());

  const send = (method: string, params: Record<string, unknown>) =>
    rawRound(server.url, method, params, { capabilities: TASKS });

  /** Polls the task until it is `status`, noting every status message it showed on the way. */
  function watch(taskId: string, status: string, seen: Set<string>): Promise<Task> {
    return until(
      async () => {
        const task = (await send('tasks/get', { taskId })).body.result as Task;
        if (task.statusMessage) seen.add(task.statusMessage);
        return task;
      },
      {
        done: (task) => task.status === status,
        what: `task ${taskId} to be ${status}`,
        everyMs: 10,
      },
    );
  }

  it('exports half, asks about personal data with progress along the way, then finishes the rest', async () => {
    const created = await send('tools/call', {
      name: 'export_report',
      arguments: { dataset: 'customers', rows: 2000 },
    });
    const taskId = (created.body.result as { taskId: string }).taskId;
    const progress = new Set<string>();
    const parked = await watch(taskId, 'input_required', progress);
    expect(Object.keys(parked.inputRequests as object)).toEqual(['include_personal']);
    expect([...progress].every((message) => /^Exported \d+\/2000 rows$/.test(message))).toBe(true);
    expect(progress.size).toBeGreaterThan(0);

    await send('tasks/update', {
      taskId,
      inputResponses: { include_personal: { action: 'accept', content: { include: false } } },
    });
    const done = await watch(taskId, 'completed', progress);
    expect(done.result).toEqual({
      resultType: 'complete',
      content: [
        {
          type: 'text',
          text: 'Exported 1900 of 2000 rows of customers to reports/customers.csv (personal data left out)',
        },
      ],
    });
  });

  it('runs synchronously, round by round, for a client without the tasks extension', async () => {
    const round1 = await rawRound(
      server.url,
      'tools/call',
      { name: 'export_report', arguments: { dataset: 'orders', rows: 10 } },
      { capabilities: { elicitation: { form: {} } } },
    );
    expect(round1.body.result).toMatchObject({ resultType: 'input_required' });
    const round2 = await rawRound(
      server.url,
      'tools/call',
      { name: 'export_report', arguments: { dataset: 'orders', rows: 10 } },
      {
        capabilities: { elicitation: { form: {} } },
        inputResponses: { include_personal: { action: 'accept', content: { include: true } } },
        requestState: round1.body.result?.requestState,
      },
    );
    expect(round2.body.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Exported 10 of 10 rows of orders to reports/orders.csv' }],
    });
  });
});
