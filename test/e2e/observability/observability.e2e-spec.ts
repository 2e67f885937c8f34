import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { newKeyring, startSampleApp } from '../../fixtures/sample-app';
import { TracedFixturesModule } from './traced.fixtures';
import { ADAPTERS, type TestServer } from '../../utils/bootstrap';
import { freshId, rawRound, rawToolCall, stateOf, type RawRoundResponse } from '../../utils/mcp';
import { installTestTelemetry, parentSpanId, type TestTelemetry } from '../../utils/otel';
import { sleep, until } from '../../utils/wait';

const FORM = { elicitation: {} };
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const CLIENT_TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;

const answer = (n: number, value: string) => ({
  [`step-${n}`]: { action: 'accept', content: { value } },
});

/**
 * The module's spans and metrics through a real OpenTelemetry SDK (in-memory span exporter, an
 * on-demand metric reader): one SERVER span per request with the MCP conventions' names, the rounds
 * of one flow tied together, refusals with their reason, tasks linked to their creating request.
 */
describe.each(ADAPTERS)('OpenTelemetry over %s', (adapter) => {
  let telemetry: TestTelemetry;
  let server: TestServer;

  beforeAll(async () => {
    telemetry = installTestTelemetry();
    server = await startSampleApp(
      adapter,
      { MCP_KEYRING: newKeyring(['k1']).json },
      { extraImports: [TracedFixturesModule] },
    );
  });

  afterAll(async () => {
    await server?.close();
    await telemetry?.shutdown();
  });

  beforeEach(() => telemetry.exporter.reset());

  const collect = (
    state: string | undefined,
    reply: Record<string, unknown> | undefined,
    extraMeta: Record<string, unknown> = {},
    args: Record<string, unknown> = { rounds: 2 },
  ): Promise<RawRoundResponse> =>
    rawToolCall(server.url, 'collect_rounds', args, {
      id: freshId(),
      capabilities: FORM,
      requestState: state,
      inputResponses: reply,
      extraMeta,
    });

  const ours = (name: string) =>
    telemetry
      .spans()
      .filter((span) => span.instrumentationScope.name === 'nestjs-mcp' && span.name === name);

  it('makes one trace of the three rounds of collect_rounds, the client parenting round 2', async () => {
    const first = await collect(undefined, undefined);
    const second = await collect(stateOf(first), answer(1, 'a'), {
      traceparent: CLIENT_TRACEPARENT,
    });
    const third = await collect(stateOf(second), answer(2, 'b'));
    expect(third.body.result).toMatchObject({ resultType: 'complete' });

    const spans = ours('tools/call collect_rounds');
    expect(spans).toHaveLength(3);
    const [one, two, three] = spans;
    for (const span of spans) {
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'collect_rounds',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': '2026-07-28',
        'network.transport': 'tcp',
      });
      expect(span.attributes['jsonrpc.request.id']).toEqual(expect.any(String));
      expect(span.attributes['client.address']).toEqual(expect.any(String));
      expect(span.attributes['nestjs_mcp.flow.id']).toBe(one.attributes['nestjs_mcp.flow.id']);
    }
    expect(
      spans.map((span) => [
        span.attributes['nestjs_mcp.round'],
        span.attributes['nestjs_mcp.outcome'],
      ]),
    ).toEqual([
      [1, 'input_required'],
      [2, 'input_required'],
      [3, 'complete'],
    ]);
    // No arguments, answers or state on a span.
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toMatch(/"a"|"b"|rounds":2/);

    // Round 1 starts the trace; round 2 is the client's child and links round 1; round 3, sent
    // without trace context, continues round 1's trace under it.
    expect(parentSpanId(one)).toBeUndefined();
    expect(two.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(parentSpanId(two)).toBe(CLIENT_SPAN);
    expect(two.links.map((link) => link.context.spanId)).toContain(one.spanContext().spanId);
    expect(three.spanContext().traceId).toBe(one.spanContext().traceId);
    expect(parentSpanId(three)).toBe(one.spanContext().spanId);
  });

  it("with tracing.roundParent 'first-round', keeps every round in the first round's trace and links the client's", async () => {
    const flowServer = await startSampleApp(
      adapter,
      { MCP_KEYRING: newKeyring(['k1']).json, MCP_TRACE_ROUND_PARENT: 'first-round' },
      { extraImports: [TracedFixturesModule] },
    );
    try {
      const call = (
        state: string | undefined,
        reply: Record<string, unknown> | undefined,
        extraMeta = {},
      ) =>
        rawToolCall(
          flowServer.url,
          'collect_rounds',
          { rounds: 2 },
          {
            id: freshId(),
            capabilities: FORM,
            requestState: state,
            inputResponses: reply,
            extraMeta,
          },
        );
      const first = await call(undefined, undefined);
      const second = await call(stateOf(first), answer(1, 'a'), {
        traceparent: CLIENT_TRACEPARENT,
      });
      const third = await call(stateOf(second), answer(2, 'b'));
      expect(third.body.result).toMatchObject({ resultType: 'complete' });
      const [one, two, three] = ours('tools/call collect_rounds');
      expect(parentSpanId(one)).toBeUndefined();
      for (const later of [two, three]) {
        expect(later.spanContext().traceId).toBe(one.spanContext().traceId);
        expect(parentSpanId(later)).toBe(one.spanContext().spanId);
      }
      const clientLink = two.links.find(
        (link) => link.attributes?.['nestjs_mcp.link'] === 'client',
      );
      expect(clientLink?.context).toMatchObject({ traceId: CLIENT_TRACE, spanId: CLIENT_SPAN });
      expect(three.links.some((link) => link.attributes?.['nestjs_mcp.link'] === 'client')).toBe(
        false,
      );
    } finally {
      await flowServer.close();
    }
  });

  it('parents a span by the HTTP traceparent header when _meta has none', async () => {
    await rawToolCall(
      server.url,
      'traced_work',
      {},
      { headers: { traceparent: CLIENT_TRACEPARENT } },
    );
    const [span] = ours('tools/call traced_work');
    expect(span.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(parentSpanId(span)).toBe(CLIENT_SPAN);
  });

  it("nests the application's own spans under the request's span", async () => {
    await rawToolCall(server.url, 'traced_work', {});
    const [request] = ours('tools/call traced_work');
    const work = telemetry.spans().find((span) => span.name === 'app.work') as ReadableSpan;
    expect(parentSpanId(work)).toBe(request.spanContext().spanId);
    expect(work.spanContext().traceId).toBe(request.spanContext().traceId);
  });

  it("gives a refused retry's span its reason and field, never the state", async () => {
    const first = await collect(undefined, undefined);
    const refused = await collect(stateOf(first), answer(1, 'a'), {}, { rounds: 3 });
    expect(refused.body.error).toEqual({ code: -32602, message: 'Invalid request state' });
    const span = ours('tools/call collect_rounds').at(-1) as ReadableSpan;
    expect(span.attributes).toMatchObject({
      'nestjs_mcp.outcome': 'rejected',
      'nestjs_mcp.rejection.reason': 'binding_mismatch',
      'nestjs_mcp.rejection.field': 'arguments',
      'nestjs_mcp.round': 2,
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
    });
    // The refused state was authentic: the span names its flow, and links the flow's first round.
    expect(span.attributes['nestjs_mcp.flow.id']).toBe(
      ours('tools/call collect_rounds')[0].attributes['nestjs_mcp.flow.id'],
    );
    expect(JSON.stringify(span.attributes)).not.toContain(stateOf(first).slice(0, 20));
  });

  it("links a task's step to the request that created it", async () => {
    const created = await rawRound(
      server.url,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0 } },
      { capabilities: TASKS },
    );
    const taskId = (created.body.result as { taskId: string }).taskId;
    expect(taskId).toEqual(expect.any(String));
    const step = await until(
      () =>
        ours('tools/call slow_compute').find(
          (span) => span.attributes['nestjs_mcp.task.id'] === taskId,
        ),
      { done: (span) => span !== undefined, what: 'the task step span' },
    );
    const creating = ours('tools/call slow_compute').find(
      (span) => span.kind === SpanKind.SERVER,
    ) as ReadableSpan;
    expect(step?.kind).toBe(SpanKind.INTERNAL);
    expect(step?.links.map((link) => link.context.spanId)).toContain(creating.spanContext().spanId);
    // The same trace, continued on whichever instance runs the step.
    expect(step?.spanContext().traceId).toBe(creating.spanContext().traceId);
    expect(step?.attributes['nestjs_mcp.flow.id']).toBe(creating.attributes['nestjs_mcp.flow.id']);
  });

  describe('metrics, read through a metric reader', () => {
    let shortLived: TestServer;

    beforeAll(async () => {
      shortLived = await startSampleApp(adapter, {
        MCP_KEYRING: newKeyring(['k1']).json,
        MCP_STATE_MAX_LIFETIME_MS: '1000',
      });
    });

    afterAll(() => shortLived?.close());

    const TRANSFER = { amount: '5.00', to: 'dora' };
    const transfer = (url: URL, state?: string, action?: string) =>
      rawToolCall(url, 'transfer_funds', TRANSFER, {
        capabilities: FORM,
        requestState: state,
        inputResponses:
          action === undefined ? undefined : { approval: { action, content: { approve: true } } },
      });
    const TOOL = { 'gen_ai.tool.name': 'transfer_funds' };
    const counts = async () => ({
      started: await telemetry.count('nestjs_mcp.flows.started', TOOL),
      completed: await telemetry.count('nestjs_mcp.flows.completed', TOOL),
      declined: await telemetry.count('nestjs_mcp.flows.declined', {
        'gen_ai.tool.name': 'onboard_user',
      }),
      rejected: await telemetry.count('nestjs_mcp.flows.rejected', {
        ...TOOL,
        'nestjs_mcp.rejection.reason': 'replayed',
      }),
      expired: await telemetry.count('nestjs_mcp.flows.expired', TOOL),
    });

    it('counts a completed, a declined, a rejected and an expired flow', async () => {
      const before = await counts();
      const completed = await transfer(server.url);
      await transfer(server.url, stateOf(completed), 'accept');
      // The same single-use approval again: refused as replayed.
      await transfer(server.url, stateOf(completed), 'accept');
      // The user declines onboarding's first question: the tool answers, the flow ends declined.
      const onboarding = await rawToolCall(server.url, 'onboard_user', {}, { capabilities: FORM });
      const [ask] = Object.keys(onboarding.body.result?.inputRequests ?? {});
      const declined = await rawToolCall(
        server.url,
        'onboard_user',
        {},
        {
          capabilities: FORM,
          requestState: stateOf(onboarding),
          inputResponses: { [ask]: { action: 'decline' } },
        },
      );
      expect(declined.body.result).toMatchObject({ resultType: 'complete' });
      const expiring = await transfer(shortLived.url);
      // Past the 1 s lifetime of the state's flow.
      await sleep(1_100);
      const late = await transfer(shortLived.url, stateOf(expiring), 'accept');
      expect(late.body.error).toEqual({ code: -32602, message: 'Invalid request state' });
      expect(await counts()).toEqual({
        started: before.started + 2,
        completed: before.completed + 1,
        declined: before.declined + 1,
        rejected: before.rejected + 1,
        expired: before.expired + 1,
      });
      const rounds = (await telemetry.points('nestjs_mcp.flow.rounds')).filter(
        (point) => point.attributes['gen_ai.tool.name'] === 'transfer_funds',
      );
      expect(
        rounds.reduce((sum, point) => sum + (point.value as { count: number }).count, 0),
      ).toBeGreaterThanOrEqual(1);
    });

    it("records mcp.server.operation.duration in seconds with the conventions' buckets", async () => {
      await rawToolCall(server.url, 'traced_work', {});
      const [point] = (await telemetry.points('mcp.server.operation.duration')).filter(
        (candidate) => candidate.attributes['gen_ai.tool.name'] === 'traced_work',
      );
      const histogram = point.value as { buckets: { boundaries: number[] }; count: number };
      expect(histogram.buckets.boundaries).toEqual([
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
      ]);
      expect(histogram.count).toBeGreaterThanOrEqual(1);
      expect(point.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2026-07-28',
      });
    });

    it('counts tasks by status', async () => {
      const before = await telemetry.count('nestjs_mcp.tasks', {
        'nestjs_mcp.task.status': 'completed',
      });
      await rawRound(
        server.url,
        'tools/call',
        { name: 'slow_compute', arguments: { seconds: 0 } },
        { capabilities: TASKS },
      );
      await until(
        () => telemetry.count('nestjs_mcp.tasks', { 'nestjs_mcp.task.status': 'completed' }),
        { done: (now) => now === before + 1, what: 'the completed task to be counted' },
      );
    });
  });
});
