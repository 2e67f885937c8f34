import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startSampleApp } from '../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';

const run = promisify(execFile);

/**
 * The client of docs/tasks.md "A client for tasks", taken from the page as written: every `js`
 * block of the section, in order, as one ES module (ext-tasks is ESM only, so it runs in its own
 * Node process, as a reader would run it).
 */
function docsTasksClient(): { file: string; shownOutput: string[] } {
  const page = readFileSync(join(__dirname, '../../..', 'docs', 'tasks.md'), 'utf8');
  const start = page.indexOf('\n## A client for tasks\n');
  if (start < 0) throw new Error('docs/tasks.md has no "A client for tasks" section');
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]);
  if (blocks.length === 0) throw new Error('"A client for tasks" has no js code');
  const shown = /```text\n\$ node tasks-client\.mjs\n([\s\S]*?)```/.exec(section)?.[1];
  if (shown === undefined) throw new Error('"A client for tasks" shows no output');
  const directory = join(__dirname, '../../.generated');
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'tasks-client.mjs');
  writeFileSync(file, blocks.join('\n'));
  return { file, shownOutput: shown.trim().split('\n') };
}

const CLIENT = docsTasksClient();

describe.each(ADAPTERS)(
  'the tasks client of docs/tasks.md against the sample app over %s',
  (adapter) => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startSampleApp(adapter, {});
    });

    afterAll(() => server?.close());

    it("runs export_report as a task, answers the task's question and prints its result", async () => {
      const { stdout } = await run(process.execPath, [CLIENT.file], {
        env: { ...process.env, MCP_URL: server.url.href },
        timeout: 20_000,
      });
      expect(stdout.trim().split('\n')).toEqual([
        'started as: task',
        'asked: The sales export contains 50 rows with personal data. Include them?',
        'completed: Exported 950 of 1000 rows of sales to reports/sales.csv (personal data left out)',
      ]);
      expect(CLIENT.shownOutput).toEqual(stdout.trim().split('\n'));
    });
  },
);
