import { Injectable, Module } from '@nestjs/common';
import {
  McpContext,
  McpInputRequest,
  McpInputRequiredResult,
  McpMayRequestInput,
  McpModule,
  McpRequestStateMode,
  McpTool,
  type McpOperationContext,
} from '../../../src/index';
import { HandlerRuns, HandlerRunsModule } from '../../fixtures/handler-runs';
import { ALL_ADAPTERS, startTestServer, type TestServer } from '../../utils/bootstrap';
import { rawRound, type RawRoundOptions } from '../../utils/mcp';
import { askOnce } from '../../utils/input-asks';

// Issue #17 (item 8): a number a double cannot hold (`1e400`, a 400-digit integer) is within the
// body bounds, but parses to Infinity; in a framework-state call it cannot be bound, so it is
// refused with -32602 naming the field before the method runs — round 1 included.

const CONFIRM = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
} as const;
const FORM = { elicitation: { form: {} } };
const TASKS = { ...FORM, extensions: { 'io.modelcontextprotocol/tasks': {} } };
const HUGE_NUMBERS: [string, string][] = [
  ['1e400', '1e400'],
  ['a 400-digit integer', '9'.repeat(400)],
  ['-1e400', '-1e400'],
];

@Injectable()
class CountedTools {
  constructor(private readonly runs: HandlerRuns) {}

  @McpTool({
    description: 'Counts its runs, then asks to confirm',
    inputSchema: { type: 'object' },
    requestState: McpRequestStateMode.FRAMEWORK_PROTECTED,
  })
  @McpMayRequestInput({ type: 'elicitation.form' })
  counted_confirm(@McpContext() ctx: McpOperationContext): McpInputRequiredResult | string {
    this.runs.hit('counted_confirm');
    if (ctx.requestState.framework() !== undefined) return 'confirmed';
    return askOnce(
      'ok',
      McpInputRequest.elicitForm({ message: 'Sure?', requestedSchema: CONFIRM }),
    );
  }

  @McpTool({
    description: 'Counts its runs',
    inputSchema: { type: 'object' },
    taskSupport: 'optional',
  })
  counted_task(): string {
    this.runs.hit('counted_task');
    return 'done';
  }
}

function numbersApp(fastPath: boolean) {
  @Module({
    imports: [McpModule.forRoot({ http: { fastPath } }), HandlerRunsModule],
    providers: [CountedTools],
  })
  class NumbersApp {}
  return NumbersApp;
}

describe.each(
  ALL_ADAPTERS.flatMap((adapter) => [true, false].map((fast) => [adapter, fast] as const)),
)('numbers a double cannot hold over %s (fast path: %s)', (adapter, fastPath) => {
  let server: TestServer;
  const runs = () => server.app.get(HandlerRuns);

  beforeAll(async () => {
    server = await startTestServer(adapter, { imports: [numbersApp(fastPath)] });
  });
  afterAll(() => server?.close());

  const call = (name: string, args: unknown, options: RawRoundOptions = {}) =>
    rawRound(
      server.url,
      'tools/call',
      { name, arguments: args },
      { capabilities: FORM, ...options },
    );

  const refusal = (field: string) => ({
    code: -32602,
    message: 'Invalid params: a number is too large to represent',
    data: { field },
  });

  it.each(HUGE_NUMBERS)(
    'refuses %s in the arguments of round 1 before the method runs',
    async (_label, text) => {
      const before = runs().count('counted_confirm');
      const answer = await call(
        'counted_confirm',
        { nested: { list: [1, '@big'] } },
        {
          rawTokens: { '"@big"': text },
        },
      );
      expect(answer.status).toBe(200);
      expect(answer.body.error).toEqual(refusal('params.arguments.nested.list[1]'));
      expect(runs().count('counted_confirm')).toBe(before);
    },
  );

  it.each(HUGE_NUMBERS)('refuses %s in _meta before the method runs', async (_label, text) => {
    const before = runs().count('counted_confirm');
    const answer = await call(
      'counted_confirm',
      {},
      {
        extraMeta: { 'com.example/weight': '@big' },
        rawTokens: { '"@big"': text },
      },
    );
    expect(answer.body.error).toEqual(refusal('params._meta["com.example/weight"]'));
    expect(runs().count('counted_confirm')).toBe(before);
  });

  it('refuses one in the arguments of a retry, before the state is even opened', async () => {
    const first = await call('counted_confirm', { n: 1 });
    const state = first.body.result?.requestState;
    expect(typeof state).toBe('string');
    const before = runs().count('counted_confirm');
    const retry = await call(
      'counted_confirm',
      { n: '@big' },
      {
        requestState: state,
        inputResponses: { ok: { action: 'accept', content: { ok: true } } },
        rawTokens: { '"@big"': '1e400' },
      },
    );
    expect(retry.body.error).toEqual(refusal('params.arguments.n'));
    expect(runs().count('counted_confirm')).toBe(before);
    // The genuine retry still works: nothing was spent.
    const genuine = await call(
      'counted_confirm',
      { n: 1 },
      {
        requestState: state,
        inputResponses: { ok: { action: 'accept', content: { ok: true } } },
      },
    );
    expect(genuine.body.result).toMatchObject({ content: [{ type: 'text', text: 'confirmed' }] });
  });

  it('refuses one in a task-creating call, creating no task (JSON would keep it as null)', async () => {
    const before = runs().count('counted_task');
    const answer = await call(
      'counted_task',
      { n: '@big' },
      {
        capabilities: TASKS,
        rawTokens: { '"@big"': '1e400' },
      },
    );
    expect(answer.body.error).toEqual(refusal('params.arguments.n'));
    expect(answer.body.result).toBeUndefined();
    expect(runs().count('counted_task')).toBe(before);
  });

  it('still serves large finite numbers as before', async () => {
    const answer = await call(
      'counted_confirm',
      { n: '@big' },
      { rawTokens: { '"@big"': '1e308' } },
    );
    expect(answer.body.result?.resultType).toBe('input_required');
  });
});
