import { SpanKind } from '@opentelemetry/api';
import { newKeyring } from '../../../fixtures/sample-app';
import { bullMqFleetForSuite } from './fleet-tasks.fixtures';

import { rawRound } from '../../../utils/mcp';
import { installTestTelemetry, parentSpanId } from '../../../utils/otel';

import { until } from '../../../utils/wait';
import { redisForSuite } from '../../../utils/redis-suite';
import { SuiteScope } from '../../../utils/suite-resource';

/**
 * A task created through instance B, its step run by A's BullMQ worker: the step's span continues
 * the creating request's trace from the span context in the task record on Redis (no memory shared
 * between the instances is involved; they share only Redis).
 */
describe('the trace of a task across a BullMQ fleet', () => {
  const keyring = newKeyring(['k1']);
  const capabilities = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const scope = new SuiteScope();
  const { client } = redisForSuite(scope);
  const telemetry = scope.open(installTestTelemetry, (installed) => installed.shutdown());
  // A runs the step; B, whose worker is off, creates the task.
  const { b } = bullMqFleetForSuite(client, keyring, 'trace', scope);

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
