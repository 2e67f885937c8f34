import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { McpModule, type McpModuleOptions } from '../../../src/index';
import { HandlerRuns } from '../../fixtures/handler-runs';
import { CapturingLogger } from '../../fixtures/sample-app';
import {
  HEADER_PARTITIONS,
  RecordingStateHandleRepository,
  RecordingStateHandleRepositoryModule,
  StateHandleFixturesModule,
  UNREACHABLE_REPOSITORY,
} from './state-handles.fixtures';
import { ADAPTERS, startTestServer, startupError, type TestServer } from '../../utils/bootstrap';
import {
  connectClient,
  rawToolCall,
  resultText,
  type RawRoundOptions,
  type RawRoundResponse,
} from '../../utils/mcp';
import {
  expectExactlyOneAccepted,
  INVALID_STATE,
  INTERNAL_ERROR,
  STORE_UNAVAILABLE,
} from '../../utils/expect-rpc';
import { APPROVE } from '../../utils/sample-calls';

const FORM = { elicitation: {} };
/**
 * A handle on the wire: behind the flow's tagged prefix (`f1.<flow id>.<key id>.<tag>.`, the
 * module's, taken off before the handle reaches the repository), the random handle.
 */
const WIRE_SHAPE = /^f1\.([0-9a-f-]{36})\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}\.([A-Za-z0-9_-]{43})$/;

/** The handle itself, as the repository keeps it. */
function bareHandle(wire: string): string {
  const match = WIRE_SHAPE.exec(wire);
  if (!match) throw new Error(`not a handle on the wire: ${wire}`);
  return match[2];
}

describe.each(ADAPTERS)('state handles over %s', (adapter) => {
  const logger = new CapturingLogger();
  const clients: Client[] = [];
  let main: TestServer;
  /** Flows live 300 ms. */
  let short: TestServer;
  /** Two rounds and 64 bytes of data per flow. */
  let tight: TestServer;
  let appRepository: TestServer;
  let unreachable: TestServer;

  const start = (options: McpModuleOptions, imports: unknown[] = []) =>
    startTestServer(
      adapter,
      {
        imports: [
          McpModule.forRoot({ identity: { partitionResolver: HEADER_PARTITIONS }, ...options }),
          StateHandleFixturesModule,
          ...(imports as []),
        ],
      },
      '/mcp',
      { logger },
    );

  beforeAll(async () => {
    main = await start({});
    short = await start({ requestState: { maxLifetimeMs: 300 } });
    tight = await start({ requestState: { maxRounds: 2, maxHandleDataBytes: 64 } });
    appRepository = await start({}, [RecordingStateHandleRepositoryModule]);
    unreachable = await start({ requestState: { stateHandleRepository: UNREACHABLE_REPOSITORY } });
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    for (const server of [main, short, tight, appRepository, unreachable]) await server?.close();
  });

  const runs = (server: TestServer, name: string) => server.app.get(HandlerRuns).count(name);
  function call(
    server: TestServer,
    tool: string,
    args: Record<string, unknown>,
    options: RawRoundOptions = {},
  ): Promise<RawRoundResponse> {
    return rawToolCall(server.url, tool, args, {
      capabilities: FORM,
      headers: { 'X-User': 'alice' },
      ...options,
    });
  }

  /** A `rounds`-round `handle_collect` on `server` continued under `handle`, answering step `n` with `value`. */
  function collectStep(
    server: TestServer,
    rounds: number,
    handle: string,
    n: number,
    value: string,
  ): Promise<RawRoundResponse> {
    return call(
      server,
      'handle_collect',
      { rounds },
      {
        requestState: handle,
        inputResponses: { [`step-${n}`]: { action: 'accept', content: { value } } },
      },
    );
  }

  function handleOf(response: RawRoundResponse): string {
    const state = response.body.result?.requestState;
    if (typeof state !== 'string') throw new Error(`expected a handle, got ${response.text}`);
    return state;
  }

  it('completes a three-round flow through the official client, one handle per round', async () => {
    const asked: string[] = [];
    const client = await connectClient(
      main.url,
      { 'X-User': 'alice' },
      {
        capabilities: FORM,
        setup: (c) =>
          c.setRequestHandler('elicitation/create', (request) => {
            const message = (request.params as { message: string }).message;
            asked.push(message);
            return { action: 'accept', content: { value: message.slice(6, 7) } };
          }),
      },
    );
    clients.push(client);
    const before = runs(main, 'handle_collect:done');
    const result = await client.callTool({ name: 'handle_collect', arguments: { rounds: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: '1,2,3' }]);
    expect(asked).toEqual(['Value 1?', 'Value 2?', 'Value 3?']);
    expect(runs(main, 'handle_collect:done')).toBe(before + 1);
  });

  it('puts only the flow and a fresh random handle on the wire each round; an earlier one is refused', async () => {
    const first = handleOf(await call(main, 'handle_collect', { rounds: 3 }));
    const second = handleOf(await collectStep(main, 3, first, 1, 'a'));
    expect(first).toMatch(WIRE_SHAPE);
    expect(second).toMatch(WIRE_SHAPE);
    expect(bareHandle(second)).not.toBe(bareHandle(first));
    // One flow: the same id ahead of each round's handle.
    expect(WIRE_SHAPE.exec(second)?.[1]).toBe(WIRE_SHAPE.exec(first)?.[1]);
    const replay = await collectStep(main, 3, first, 1, 'a');
    expect(replay.body.error).toEqual(INVALID_STATE);
    const third = handleOf(await collectStep(main, 3, second, 2, 'b'));
    const done = await collectStep(main, 3, third, 3, 'c');
    expect(resultText(done)).toBe('a,b,c');
    // A finished flow's last handle is gone too.
    const again = await collectStep(main, 3, third, 3, 'c');
    expect(again.body.error).toEqual(INVALID_STATE);
  });

  it('lets exactly one of 50 concurrent retries with one handle run; 49 get -32602', async () => {
    const handle = handleOf(await call(main, 'handle_approve', { amount: '120.50' }));
    const before = runs(main, 'handle_approve:approved');
    const mark = logger.lines.length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(
          main,
          'handle_approve',
          { amount: '120.50' },
          {
            requestState: handle,
            inputResponses: APPROVE,
          },
        ),
      ),
    );
    expectExactlyOneAccepted(responses, 'Approved 120.50');
    expect(runs(main, 'handle_approve:approved')).toBe(before + 1);
    expect(logger.text(mark).match(/request state rejected: handle unknown/g)).toHaveLength(49);
  });

  it("refuses another caller's or another operation's use of a handle without consuming it", async () => {
    const handle = handleOf(await call(main, 'handle_approve', { amount: '9.99' }));
    /** The approval under `handle`, by alice unless `options` says otherwise. */
    const approve = (options: RawRoundOptions = {}) =>
      call(
        main,
        'handle_approve',
        { amount: '9.99' },
        { requestState: handle, inputResponses: APPROVE, ...options },
      );
    const eve = await approve({ headers: { 'X-User': 'eve' } });
    expect(eve.body.error).toEqual(INVALID_STATE);
    const anonymous = await approve({ headers: {} });
    expect(anonymous.body.error).toEqual(INVALID_STATE);
    const otherTool = await collectStep(main, 2, handle, 1, 'x');
    expect(otherTool.body.error).toEqual(INVALID_STATE);
    const alice = await approve();
    expect(resultText(alice)).toBe('Approved 9.99');
  });

  it('refuses malformed and unknown handles with the same error; malformed ones never reach the repository', async () => {
    const repository = appRepository.app.get(RecordingStateHandleRepository);
    const unknown = randomBytes(32).toString('base64url');
    const mark = logger.lines.length;
    const calls = repository.calls.length;
    for (const state of ['abc', `${'A'.repeat(42)}=`, unknown]) {
      const response = await call(
        appRepository,
        'handle_approve',
        { amount: '1' },
        {
          requestState: state,
          inputResponses: APPROVE,
        },
      );
      expect(response.body.error).toEqual(INVALID_STATE);
    }
    expect(repository.calls.slice(calls)).toEqual(['redeem']);
    expect(logger.text(mark).match(/request state rejected: malformed handle/g)).toHaveLength(2);
    expect(logger.text(mark)).toContain('request state rejected: handle unknown');
    expect(logger.text(mark)).not.toContain(unknown);
  });

  it('refuses a handle once its flow has expired', async () => {
    const handle = handleOf(await call(short, 'handle_approve', { amount: '5' }));
    await new Promise((done) => setTimeout(done, 400));
    const response = await call(
      short,
      'handle_approve',
      { amount: '5' },
      {
        requestState: handle,
        inputResponses: APPROVE,
      },
    );
    expect(response.body.error).toEqual(INVALID_STATE);
  });

  it('answers -32603 when the data is too large or the flow is past its rounds, naming the limit in the log', async () => {
    let mark = logger.lines.length;
    const large = await call(tight, 'handle_approve', { amount: '1', note: 'n'.repeat(100) });
    expect(large.body.error).toEqual(INTERNAL_ERROR);
    expect(logger.text(mark)).toContain('data is over requestState.maxHandleDataBytes (64)');
    const first = handleOf(await call(tight, 'handle_collect', { rounds: 5 }));
    const second = handleOf(await collectStep(tight, 5, first, 1, 'a'));
    mark = logger.lines.length;
    const third = await collectStep(tight, 5, second, 2, 'b');
    expect(third.body.error).toEqual(INTERNAL_ERROR);
    expect(logger.text(mark)).toContain('the flow is past requestState.maxRounds (2)');
  });

  it('answers the retryable -32000 when the repository cannot answer, logging the outage once', async () => {
    const mark = logger.lines.length;
    const first = await call(unreachable, 'handle_approve', { amount: '1' });
    expect(first.body.error).toEqual(STORE_UNAVAILABLE);
    const retry = await call(
      unreachable,
      'handle_approve',
      { amount: '1' },
      {
        requestState: randomBytes(32).toString('base64url'),
        inputResponses: APPROVE,
      },
    );
    expect(retry.body.error).toEqual(STORE_UNAVAILABLE);
    expect(
      logger.text(mark).match(/The state handle repository is unavailable \(unavailable\)/g),
    ).toHaveLength(1);
    expect(logger.text(mark)).not.toContain('ECONNREFUSED');
  });

  it('uses a StateHandleRepository the application provides, and leaves no record behind', async () => {
    const repository = appRepository.app.get(RecordingStateHandleRepository);
    const calls = repository.calls.length;
    const handle = handleOf(await call(appRepository, 'handle_approve', { amount: '7' }));
    expect([...repository.records.keys()]).toEqual([bareHandle(handle)]);
    const done = await call(
      appRepository,
      'handle_approve',
      { amount: '7' },
      {
        requestState: handle,
        inputResponses: APPROVE,
      },
    );
    expect(resultText(done)).toBe('Approved 7');
    expect(repository.calls.slice(calls)).toEqual(['put', 'redeem', 'delete']);
    expect(repository.records.size).toBe(0);
  });

  it('refuses state handles in an operation that does not declare APPLICATION_PROTECTED (-32603, logged)', async () => {
    const repository = appRepository.app.get(RecordingStateHandleRepository);
    const calls = repository.calls.length;
    const mark = logger.lines.length;
    const response = await call(appRepository, 'handle_framework_confused', {});
    expect(response.body.error).toEqual(INTERNAL_ERROR);
    expect(logger.text(mark)).toContain(
      'uses state handles but declares requestState "framework"; declare APPLICATION_PROTECTED',
    );
    expect(repository.calls.length).toBe(calls);
  });

  it('fails startup when the option and an application provider name different repositories', async () => {
    const error = await startupError(adapter, {
      imports: [
        McpModule.forRoot({ requestState: { stateHandleRepository: UNREACHABLE_REPOSITORY } }),
        RecordingStateHandleRepositoryModule,
      ],
    });
    expect(error?.message).toMatch(/stateHandleRepository/);
  });
});
