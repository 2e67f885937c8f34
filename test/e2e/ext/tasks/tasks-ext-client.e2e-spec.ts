import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tasksApp } from './tasks.fixtures';
import { ADAPTERS, startTestServer, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';

const DRIVER = join(__dirname, '../../../utils/ext-tasks-driver.mjs');
const run = promisify(execFile);

/** What the official requester (`@modelcontextprotocol/ext-tasks`, ESM only) observed. */
async function requester(
  url: URL,
  user: string,
  scenario: string,
  ...rest: string[]
): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [DRIVER, url.href, user, scenario, ...rest], {
    timeout: 20_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
}

describe.each(ADAPTERS)('the official tasks requester against the module over %s', (adapter) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [tasksApp()] });
  });

  afterAll(() => server?.close());

  it('creates a task and polls it to its result', async () => {
    expect(await requester(server.url, 'alice', 'complete')).toEqual({
      scenario: 'complete',
      kind: 'task',
      status: 'completed',
      text: 'counted to 3',
    });
  });

  it("answers the task's input requests through tasks/update until it completes", async () => {
    const observed = await requester(server.url, 'alice', 'input');
    expect(observed).toMatchObject({ kind: 'task', status: 'completed' });
    expect(observed.text).toMatch(/^Paid 3\.00 \(ref-[0-9a-f]{6}\) with note "from ext-tasks"$/);
    expect((observed.asked as string[]).sort()).toEqual(['A note for the payee?', 'Pay 3.00?']);
  });

  it('cancels a running task', async () => {
    expect(await requester(server.url, 'alice', 'cancel')).toMatchObject({
      kind: 'task',
      status: 'cancelled',
    });
  });

  it("gets -32602 for every tasks/* method on another caller's task", async () => {
    const created = await rawRound(
      server.url,
      'tools/call',
      { name: 'approve_payment', arguments: { amount: '9.99' } },
      {
        capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} },
        headers: { 'x-user': 'alice' },
      },
    );
    const taskId = (created.body.result as { taskId: string }).taskId;
    expect(await requester(server.url, 'mallory', 'foreign', taskId)).toEqual({
      scenario: 'foreign',
      errors: { 'tasks/get': -32602, 'tasks/update': -32602, 'tasks/cancel': -32602 },
    });
  });
});
