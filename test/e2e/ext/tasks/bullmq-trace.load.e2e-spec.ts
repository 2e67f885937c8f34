import { SpanKind } from '@opentelemetry/api';
import Redis from 'ioredis';
import { newKeyring } from '../../../fixtures/sample-app';
import { startBullMqFleet } from './fleet-tasks.fixtures';
import type { TestServer } from '../../../utils/bootstrap';
import { rawRound } from '../../../utils/mcp';
import { installTestTelemetry, parentSpanId, type TestTelemetry } from '../../../utils/otel';
import { startRedisServer, type RedisServerHandle } from '../../../utils/redis-server';
import { until } from '../../../utils/wait';

/**
 * A task created through instance B, its step run by A's BullMQ worker: the step's span continues
 * the creating request's trace from the span context in the task record on Redis (no memory shared
 * between the instances is involved; they share only Redis).
 */
describe('the trace of a task across a BullMQ fleet', () => {
  const keyring = newKeyring(['k1']);
  const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  let redis: RedisServerHandle;
  let client: Redis;
  let telemetry: TestTelemetry;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
    await client.ping();
    telemetry = installTestTelemetry();
    ({ a, b } = await startBullMqFleet(client, keyring, 'trace'));
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await telemetry?.shutdown();
    client?.disconnect();
    await redis?.close();
  });

  it("parents and links the step on A to the creating request's span on B", async () => {
    const created = await rawRound(
      b.url,
      'tools/call',
      { name: 'owner_report', arguments: {} },
      { capabilities, headers: { 'x-user': 'alice' } },
    );
    const taskId = (created.body.result as { taskId: string }).taskId;
    const spans = () =>
      telemetry
        .spans()
        .filter(
          (span) =>
            span.instrumentationScope.name === 'nestjs-mcp' &&
            span.name === 'tools/call owner_report',
        );
    const step = await until(
      () => spans().find((span) => span.attributes['nestjs_mcp.task.id'] === taskId),
      { done: (span) => span !== undefined, what: 'the step span' },
    );
    const creating = spans().find((span) => span.kind === SpanKind.SERVER);
    expect(creating).toBeDefined();
    expect(step?.kind).toBe(SpanKind.INTERNAL);
    expect(step?.spanContext().traceId).toBe(creating?.spanContext().traceId);
    expect(parentSpanId(step as never)).toBe(creating?.spanContext().spanId);
    expect(step?.links.map((link) => link.context.spanId)).toContain(
      creating?.spanContext().spanId,
    );
    expect(step?.attributes['nestjs_mcp.flow.id']).toBe(creating?.attributes['nestjs_mcp.flow.id']);
  });
});
