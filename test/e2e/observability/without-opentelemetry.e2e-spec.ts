import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * `@opentelemetry/api` is an optional peer: an app that never installed it runs as before. A child
 * process with a resolver that cannot find any `@opentelemetry/*` package runs a two-round flow with
 * an event subscriber and a client `traceparent`.
 */
describe('without @opentelemetry/api', () => {
  it('serves flows, flow ids and flow events, and loads nothing of OpenTelemetry', async () => {
    const root = join(__dirname, '../../..');
    const { stdout } = await run(
      process.execPath,
      [
        '-r',
        join(root, 'test/e2e/observability/hide-opentelemetry.cjs'),
        '-r',
        'ts-node/register/transpile-only',
        join(root, 'test/e2e/observability/without-opentelemetry.app.ts'),
      ],
      {
        cwd: root,
        env: { ...process.env, TS_NODE_PROJECT: join(root, 'tsconfig.json') },
        timeout: 120_000,
      },
    );
    const seen = JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
      first: string;
      second: string;
      header: string;
      events: unknown[];
      loaded: string[];
    };
    expect(seen.first).toBe('input_required');
    expect(seen.second).toMatch(/^flow [0-9a-f-]{36}$/);
    // No span, so no span context in the state's header.
    expect(seen.header).toMatch(/^4_[0-9]+_[0-9]+_1$/);
    expect(seen.events).toEqual([
      [1, 'input_required'],
      [2, 'complete'],
    ]);
    expect(seen.loaded).toEqual([]);
    // Compiling the app in the child takes a while on a loaded machine.
  }, 120_000);
});
