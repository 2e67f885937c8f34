// The MCP Inspector's command line against the user app (scripts/user-app-test.mjs registers these
// for every app it starts; the current Inspector's only with `current`, outside the smoke run).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { inspector, inspectorV1 } from './inspectors.mjs';
import { HANG_GUARD, TOOLS } from './expectations.mjs';

const GREET = ['--method', 'tools/call', '--tool-name', 'greet', '--tool-arg', 'name=Ada'];
const GREETING = { type: 'text', text: '{"message":"Hello, Ada! (from alice)"}' };

/** The JSON a successful CLI run printed. */
function printed(run) {
  assert.equal(run.code, 0, `the Inspector exited with ${run.code}:\n${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

export function inspectorTests(app, { current }) {
  it(
    'the MCP Inspector CLI (inspector-cli 1.x, `--cli`) lists the tools and calls the plain tool',
    HANG_GUARD,
    async () => {
      const listed = printed(await inspectorV1(app.url, app.alice, ['--method', 'tools/list']));
      assert.deepEqual(
        listed.tools.map((tool) => tool.name),
        TOOLS,
      );
      assert.deepEqual(printed(await inspectorV1(app.url, app.alice, GREET)), {
        content: [GREETING],
      });
    },
  );

  if (current) {
    it(
      'the current MCP Inspector CLI (2.12: a 2025-11-25 session declaring the tasks extension) lists the tools, calls the plain tool and gets a plain result from a tool that may run as a task',
      HANG_GUARD,
      async () => {
        const listed = printed(
          await inspector(app.inspector, app.url, app.alice, ['--method', 'tools/list']),
        );
        assert.deepEqual(
          listed.tools.map((tool) => tool.name),
          TOOLS,
        );
        assert.deepEqual(
          printed(await inspector(app.inspector, app.url, app.alice, GREET)).content,
          [GREETING],
        );
        const exported = printed(
          await inspector(app.inspector, app.url, app.alice, [
            '--method',
            'tools/call',
            '--tool-name',
            'export_report',
            '--tool-arg',
            'month=2026-08',
          ]),
        );
        assert.deepEqual(exported, {
          content: [{ type: 'text', text: 'Exported the usage report of 2026-08' }],
        });
      },
    );
  }
}
