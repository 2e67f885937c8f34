import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { newKeyring, startSampleApp } from '../../../fixtures/sample-app';
import { ADAPTERS, type TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';
import { SseReader } from '../../../utils/sse';
import { openListenStream } from '../../../utils/listen-stream';
import { installTestTelemetry, parentSpanId, type TestTelemetry } from '../../../utils/otel';
import {
  connectV1,
  SampleUser,
  SESSION_PROTOCOL_VERSION,
  textOf,
} from '../../../utils/session-clients';
import { until } from '../../../utils/wait';

const MODERN = '2026-07-28';

/**
 * The spans and metrics of 2025-era sessions and of the methods that run no operation, through a
 * real OpenTelemetry SDK: a session's spans carry its `mcp.session.id`, the elicitations a call
 * sends between its rounds are CLIENT spans with the user's action, a session's end records
 * `mcp.server.session.duration`, and every list, `ping` or `initialize` has a SERVER span named
 * after its method, on the fast path, the SDK path and in a session.
 */
describe.each(ADAPTERS)('session and method spans over %s', (adapter) => {
  let telemetry: TestTelemetry;
  let server: TestServer;

  beforeAll(async () => {
    telemetry = installTestTelemetry();
    server = await startSampleApp(adapter, { MCP_KEYRING: newKeyring(['k1']).json });
  });

  afterAll(async () => {
    await server?.close();
    await telemetry?.shutdown();
  });

  beforeEach(() => telemetry.exporter.reset());

  const ours = (name: string): ReadableSpan[] =>
    telemetry
      .spans()
      .filter((span) => span.instrumentationScope.name === 'nestjs-mcp' && span.name === name);

  it("gives a session's call, its elicitation and its lists the session's id, and records its end", async () => {
    const client = await connectV1(server.url, new SampleUser());
    const transport = client.transport as unknown as {
      sessionId?: string;
      terminateSession(): Promise<void>;
    };
    const sessionId = transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    const result = await client.callTool({
      name: 'transfer_funds',
      arguments: { amount: '12.50', to: 'bob' },
    });
    expect(textOf(result)).toBe('Transferred 12.50 to bob');
    await client.listTools();
    await client.ping();

    const SESSION = {
      'mcp.session.id': sessionId,
      'mcp.protocol.version': SESSION_PROTOCOL_VERSION,
    };
    const rounds = ours('tools/call transfer_funds');
    expect(rounds).toHaveLength(2);
    for (const span of rounds) expect(span.attributes).toMatchObject(SESSION);

    const [asked] = ours('elicitation/create');
    expect(asked.kind).toBe(SpanKind.CLIENT);
    expect(asked.attributes).toMatchObject({
      ...SESSION,
      'mcp.method.name': 'elicitation/create',
      'nestjs_mcp.input.outcome': 'accepted',
    });
    // A child of the round that asked; nothing of the question or the answer.
    expect(parentSpanId(asked)).toBe(rounds[0].spanContext().spanId);
    expect(asked.spanContext().traceId).toBe(rounds[0].spanContext().traceId);
    expect(JSON.stringify(asked.attributes)).not.toMatch(/bob|12\.50|approve/);

    for (const method of ['tools/list', 'ping']) {
      const [span] = ours(method);
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes).toMatchObject({ ...SESSION, 'mcp.method.name': method });
    }
    const [opened] = ours('initialize');
    // The session the initialize opened is on its span too.
    expect(opened.attributes).toMatchObject({
      ...SESSION,
      'mcp.method.name': 'initialize',
      'mcp.protocol.version': SESSION_PROTOCOL_VERSION,
    });

    const before = await sessionDurations();
    await transport.terminateSession();
    await client.close();
    await until(async () => (await sessionDurations()).count === before.count + 1);
    const after = await sessionDurations();
    expect(after.count).toBe(before.count + 1);
    expect(after.sum).toBeGreaterThan(before.sum);
  });

  it('records a declined elicitation as declined', async () => {
    const user = new SampleUser();
    const decline = (): { action: 'decline' } => ({ action: 'decline' });
    user.answer = decline;
    const client = await connectV1(server.url, user);
    await client.callTool({ name: 'transfer_funds', arguments: { amount: '1.00', to: 'eve' } });
    await client.close();
    const [asked] = ours('elicitation/create');
    expect(asked.attributes['nestjs_mcp.input.outcome']).toBe('declined');
  });

  it('never puts mcp.session.id on a 2026-07-28 request, on the fast path or the SDK path', async () => {
    const fast = await rawRound(server.url, 'tools/list', {});
    expect(fast.status).toBe(200);
    // A progress token takes the request to the SDK's path.
    const sdk = await rawRound(server.url, 'tools/list', {}, { extraMeta: { progressToken: 'p' } });
    expect(sdk.status).toBe(200);
    const call = await rawRound(server.url, 'tools/call', {
      name: 'greet',
      arguments: { name: 'x' },
    });
    expect(call.status).toBe(200);
    const spans = [...ours('tools/list'), ...ours('tools/call greet')];
    expect(spans).toHaveLength(3);
    for (const span of spans) {
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.attributes['mcp.protocol.version']).toBe(MODERN);
      expect(span.attributes).not.toHaveProperty('mcp.session.id');
    }
  });

  it.each([
    ['prompts/list', {}],
    ['resources/list', {}],
    ['resources/templates/list', {}],
  ])('gives %s one SERVER span on both paths', async (method, params) => {
    await rawRound(server.url, method, params);
    await rawRound(server.url, method, params, { extraMeta: { progressToken: 'p' } });
    const spans = ours(method);
    expect(spans).toHaveLength(2);
    for (const span of spans)
      expect(span.attributes).toMatchObject({
        'mcp.method.name': method,
        'jsonrpc.request.id': expect.any(String),
        'network.transport': 'tcp',
      });
  });

  it("gives an SDK-path method's refusal its error.type", async () => {
    const refused = await rawRound(server.url, 'tasks/get', { taskId: 'no-such-task' });
    expect(refused.body.error).toBeDefined();
    const [span] = ours('tasks/get');
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tasks/get',
      'error.type': String(refused.body.error?.code),
    });
  });

  it('gives a listen stream one SERVER span that ends with the stream, and a refused one its code', async () => {
    const stream = await openListenStream(server.url, { toolsListChanged: true });
    expect(stream.status).toBe(200);
    const frames = new SseReader(stream.body);
    expect((await frames.next()).method).toBe('notifications/subscriptions/acknowledged');
    expect(ours('subscriptions/listen')).toHaveLength(0);
    stream.close();
    await until(() => ours('subscriptions/listen').length === 1);

    const refused = await rawRound(server.url, 'subscriptions/listen', {
      notifications: { resourceSubscriptions: ['x'.repeat(10_000)] },
    });
    expect(refused.body.error?.code).toBe(-32602);
    const spans = ours('subscriptions/listen');
    expect(spans).toHaveLength(2);
    expect(spans[0].attributes).not.toHaveProperty('error.type');
    expect(spans[1].attributes).toMatchObject({
      'mcp.method.name': 'subscriptions/listen',
      'mcp.protocol.version': MODERN,
      'error.type': '-32602',
    });
  });

  async function sessionDurations(): Promise<{ count: number; sum: number }> {
    const points = await telemetry.points('mcp.server.session.duration');
    let count = 0;
    let sum = 0;
    for (const point of points) {
      expect(point.attributes).toMatchObject({
        'mcp.protocol.version': SESSION_PROTOCOL_VERSION,
        'network.transport': 'tcp',
      });
      const value = point.value as {
        count: number;
        sum: number;
        buckets: { boundaries: number[] };
      };
      expect(value.buckets.boundaries).toEqual([
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
      ]);
      count += value.count;
      sum += value.sum;
    }
    return { count, sum };
  }
});
