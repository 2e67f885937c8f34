import { createHash } from 'node:crypto';
import { McpModule } from '../../../src/index';
import { HandlerRuns } from '../../fixtures/handler-runs';
import {
  askToDelete,
  confirmDelete,
  startOneTimeStateApp,
  RecordingConsumedStateStore,
  RecordingConsumedStateStoreModule,
  SingleUseWithoutFrameworkState,
  UNREACHABLE_STORE,
  FAULTY_STORE,
} from './one-time-state.fixtures';
import { CapturingLogger, newKeyring } from '../../fixtures/sample-app';
import { ADAPTERS, startupError, type TestServer } from '../../utils/bootstrap';
import { resultText } from '../../utils/mcp';
import {
  expectExactlyOneAccepted,
  INVALID_STATE,
  INTERNAL_ERROR,
  STORE_UNAVAILABLE,
} from '../../utils/expect-rpc';
import { serverForSuite } from '../../utils/suite-server';
import { SuiteScope } from '../../utils/suite-resource';

/** The state with one base64url character in the middle of its ciphertext changed. */
function flipMiddle(state: string): string {
  const at = state.lastIndexOf('.') + Math.floor((state.length - state.lastIndexOf('.')) / 2);
  return `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
}

describe.each(ADAPTERS)('one-time request state over %s', (adapter) => {
  const keyring = newKeyring(['k1']);
  const logger = new CapturingLogger();
  const scope = new SuiteScope();
  /** An app of the fixtures on the module configured with `options`, and `imports`. */
  const instance = (options: Parameters<typeof McpModule.forRoot>[0], imports: unknown[] = []) =>
    serverForSuite(
      () =>
        startOneTimeStateApp(
          adapter,
          { keyring: { active: keyring.active, keys: keyring.keys }, ...options },
          { logger, imports: imports as [] },
        ),
      scope,
    );
  const main = instance({});
  /** `requestState.singleUse: true` for the whole module. */
  const singleUseByDefault = instance({ requestState: { singleUse: true } });
  /** A `ConsumedStateStore` provided by an application module. */
  const appStore = instance({}, [RecordingConsumedStateStoreModule]);
  /** A `consumedStateStore` option that always fails. */
  const unreachable = instance({ requestState: { consumedStateStore: UNREACHABLE_STORE } });
  const faulty = instance({ requestState: { consumedStateStore: FAULTY_STORE } });
  /** Room for one consumed state. */
  const tiny = instance({ requestState: { maxConsumedStates: 1 } });

  const deletions = (server: TestServer, tool: string) =>
    server.app.get(HandlerRuns).count(`${tool}:deleted`);

  it('runs the confirmed step once for 50 concurrent retries of one state; 49 get -32602', async () => {
    const state = await askToDelete(main, 'once_delete');
    const before = deletions(main, 'once_delete');
    const mark = logger.lines.length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => confirmDelete(main, 'once_delete', state)),
    );
    expectExactlyOneAccepted(responses, 'Deleted /srv/report.pdf');
    expect(deletions(main, 'once_delete')).toBe(before + 1);
    expect(logger.text(mark).match(/request state rejected: replayed\b/g)).toHaveLength(49);
  });

  it('refuses a later replay of a consumed state under a fresh id', async () => {
    const state = await askToDelete(main, 'once_delete');
    expect(resultText(await confirmDelete(main, 'once_delete', state))).toBe(
      'Deleted /srv/report.pdf',
    );
    const before = deletions(main, 'once_delete');
    for (let i = 0; i < 3; i++)
      expect((await confirmDelete(main, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
    expect(deletions(main, 'once_delete')).toBe(before);
  });

  it('still accepts a repeat on an operation that is not single-use', async () => {
    const state = await askToDelete(main, 'repeatable_delete');
    const before = deletions(main, 'repeatable_delete');
    for (let i = 0; i < 3; i++)
      expect(resultText(await confirmDelete(main, 'repeatable_delete', state))).toBe(
        'Deleted /srv/report.pdf',
      );
    expect(deletions(main, 'repeatable_delete')).toBe(before + 3);
  });

  it('consumes nothing for a forged, misbound or malformed retry: the genuine one still runs', async () => {
    const state = await askToDelete(main, 'once_delete');
    const before = deletions(main, 'once_delete');
    const mark = logger.lines.length;
    expect((await confirmDelete(main, 'once_delete', flipMiddle(state))).body.error).toEqual(
      INVALID_STATE,
    );
    expect(
      (await confirmDelete(main, 'once_delete', state, { args: { path: '/etc/passwd' } })).body
        .error,
    ).toEqual(INVALID_STATE);
    expect(
      (await confirmDelete(main, 'once_delete', state, { inputResponses: 'yes' })).body.error?.code,
    ).toBe(-32602);
    expect(logger.text(mark)).not.toContain('rejected: replayed');
    expect(deletions(main, 'once_delete')).toBe(before);
    expect(resultText(await confirmDelete(main, 'once_delete', state))).toBe(
      'Deleted /srv/report.pdf',
    );
    expect(deletions(main, 'once_delete')).toBe(before + 1);
  });

  it('makes framework state single-use module-wide with requestState.singleUse, unless an operation opts out', async () => {
    const state = await askToDelete(singleUseByDefault, 'plain_delete');
    expect(resultText(await confirmDelete(singleUseByDefault, 'plain_delete', state))).toBe(
      'Deleted /srv/report.pdf',
    );
    expect((await confirmDelete(singleUseByDefault, 'plain_delete', state)).body.error).toEqual(
      INVALID_STATE,
    );
    const repeatable = await askToDelete(singleUseByDefault, 'repeatable_delete');
    for (let i = 0; i < 2; i++)
      expect(
        resultText(await confirmDelete(singleUseByDefault, 'repeatable_delete', repeatable)),
      ).toBe('Deleted /srv/report.pdf');
    // Without the module default, plain_delete repeats as before.
    const plain = await askToDelete(main, 'plain_delete');
    for (let i = 0; i < 2; i++)
      expect(resultText(await confirmDelete(main, 'plain_delete', plain))).toBe(
        'Deleted /srv/report.pdf',
      );
  });

  it('uses a ConsumedStateStore the application provides, keyed by the token digest until its expiry', async () => {
    const store = appStore.app.get(RecordingConsumedStateStore);
    const state = await askToDelete(appStore, 'once_delete');
    expect(resultText(await confirmDelete(appStore, 'once_delete', state))).toBe(
      'Deleted /srv/report.pdf',
    );
    expect((await confirmDelete(appStore, 'once_delete', state)).body.error).toEqual(INVALID_STATE);
    // The clear header: 4_<iat>_<exp>_<round>.
    const header = { exp: Number(state.slice(0, state.indexOf('.')).split('_')[2]) };
    const id = createHash('sha256').update(state, 'utf8').digest('base64url');
    expect(store.calls).toEqual([
      { id, expiresAt: header.exp, first: true },
      { id, expiresAt: header.exp, first: false },
    ]);
    expect(deletions(appStore, 'once_delete')).toBe(1);
  });

  it('answers the retryable -32000 and runs nothing while the store is unavailable, logging the outage once', async () => {
    const state = await askToDelete(unreachable, 'once_delete');
    const mark = logger.lines.length;
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await confirmDelete(unreachable, 'once_delete', state)).body.error).toEqual(
        STORE_UNAVAILABLE,
      );
    expect(
      logger.text(mark).match(/The single-use store is unavailable \(unavailable\)/g),
    ).toHaveLength(1);
    expect(deletions(unreachable, 'once_delete')).toBe(0);
    // Operations that are not single-use never touch the store.
    const repeatable = await askToDelete(unreachable, 'repeatable_delete');
    expect(resultText(await confirmDelete(unreachable, 'repeatable_delete', repeatable))).toBe(
      'Deleted /srv/report.pdf',
    );
  });

  it('answers -32603 and runs nothing when the store has a bug (a fault, not an outage), logging why', async () => {
    const state = await askToDelete(faulty, 'once_delete');
    const mark = logger.lines.length;
    expect((await confirmDelete(faulty, 'once_delete', state)).body.error).toEqual(INTERNAL_ERROR);
    expect(logger.text(mark)).toContain('single-use state could not be recorded (store_failure)');
    expect(deletions(faulty, 'once_delete')).toBe(0);
  });

  it('refuses with -32000 and a retry hint rather than accept a state when the memory store is full', async () => {
    const [first, second] = [
      await askToDelete(tiny, 'once_delete'),
      await askToDelete(tiny, 'once_delete'),
    ];
    expect(resultText(await confirmDelete(tiny, 'once_delete', first))).toBe(
      'Deleted /srv/report.pdf',
    );
    const mark = logger.lines.length;
    expect((await confirmDelete(tiny, 'once_delete', second)).body.error).toEqual({
      code: -32000,
      message: 'Server busy: too many single-use states',
      data: { retryAfterMs: expect.any(Number) },
    });
    expect(logger.text(mark)).toContain('single-use state could not be recorded (full)');
    expect(deletions(tiny, 'once_delete')).toBe(1);
  });

  it('fails startup when a singleUse operation does not use framework-protected state', async () => {
    const error = await startupError(adapter, {
      imports: [McpModule.forRoot({})],
      providers: [SingleUseWithoutFrameworkState],
    });
    expect(error?.name).toBe('InvalidOperationDefinitionError');
    expect(error?.message).toContain('SingleUseWithoutFrameworkState.orphan()');
    expect(error?.message).toContain('singleUse needs requestState FRAMEWORK_PROTECTED');
  });
});
