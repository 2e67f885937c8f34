import { Injectable, Module } from '@nestjs/common';
import { McpModule, McpTool } from '../../../../src/index';
import type { AuditRecord, AuditSink } from '../../../../src/entry/audit';
import { AuditSideEffects, AuditTools } from '../../../fixtures/audit/audit-tools';
import { ADAPTERS, startTestServer, startupError, type TestServer } from '../../../utils/bootstrap';
import { rawToolCall, resultText } from '../../../utils/mcp';
import { installTestTelemetry, type TestTelemetry } from '../../../utils/otel';
import { until } from '../../../utils/wait';

/** A sink a test turns off and on: while down it refuses every batch. */
class SwitchedSink implements AuditSink {
  down = false;
  readonly records: AuditRecord[] = [];
  write(records: readonly AuditRecord[]): Promise<void> {
    if (this.down) return Promise.reject(new Error('sink down'));
    this.records.push(...records);
    return Promise.resolve();
  }
}

const DROPPED = 'nestjs_mcp.audit.records.dropped';

async function audited(
  adapter: (typeof ADAPTERS)[number],
  sink: SwitchedSink,
  effects: AuditSideEffects,
  policy: 'strict' | 'best-effort',
): Promise<TestServer> {
  @Module({
    imports: [McpModule.forRoot({ audit: { sink, policy, queueBound: 3, strictTimeoutMs: 500 } })],
    providers: [AuditTools, { provide: AuditSideEffects, useValue: effects }],
  })
  class AuditedApp {}
  return startTestServer(adapter, { imports: [AuditedApp] });
}

describe.each(ADAPTERS)('the audit failure policies over %s', (adapter) => {
  let telemetry: TestTelemetry;
  beforeAll(() => {
    telemetry = installTestTelemetry();
  });
  afterAll(() => telemetry.shutdown());

  it('best-effort: calls are served while the sink is down, the overflow is counted, exported and written when it is back', async () => {
    const sink = new SwitchedSink();
    const effects = new AuditSideEffects();
    const server = await audited(adapter, sink, effects, 'best-effort');
    try {
      const before = await telemetry.count(DROPPED);
      sink.down = true;
      for (let call = 0; call < 10; call++)
        expect(resultText(await rawToolCall(server.url, 'plain', {}))).toBe('plain answer');
      expect(effects.plain).toBe(10);
      // The queue holds 3: of 10 records, at least 7 never fit.
      await until(
        async () =>
          (await telemetry.count(DROPPED, { 'nestjs_mcp.audit.reason': 'queue_full' })) - before >=
          7,
        {
          what: 'the overflow to be counted',
        },
      );
      sink.down = false;
      await rawToolCall(server.url, 'plain', {});
      const dropped = await until(
        () => sink.records.find((record) => record.event_type === 'audit.records_dropped'),
        { what: 'an audit.records_dropped record', timeoutMs: 15_000 },
      );
      expect(Number(dropped.extensions['nestjs-mcp'].dropped)).toBeGreaterThanOrEqual(7);
      const kept = sink.records.filter((record) => record.event_type === 'mcp.call.completed');
      expect(kept.length).toBeLessThanOrEqual(3 + 1);
    } finally {
      await server.close();
    }
  });

  it('strict: while the sink is down calls are refused before they run, with -32000 and retryAfterMs', async () => {
    const sink = new SwitchedSink();
    const effects = new AuditSideEffects();
    const server = await audited(adapter, sink, effects, 'strict');
    try {
      expect(resultText(await rawToolCall(server.url, 'plain', {}))).toBe('plain answer');
      const started = sink.records.filter((record) => record.event_type === 'mcp.call.started');
      expect(started).toHaveLength(1);
      sink.down = true;
      for (let call = 0; call < 3; call++) {
        const refused = await rawToolCall(server.url, 'plain', {});
        expect(refused.body.error).toMatchObject({
          code: -32000,
          data: { retryAfterMs: expect.any(Number) },
        });
      }
      expect(effects.plain).toBe(1);
      sink.down = false;
      const again = await until(
        async () => {
          const answer = await rawToolCall(server.url, 'plain', {});
          return answer.body.result ? answer : undefined;
        },
        { what: 'strict calls to be served again', timeoutMs: 15_000 },
      );
      expect(resultText(again)).toBe('plain answer');
      expect(effects.plain).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe.each(ADAPTERS)('the audit options, checked at startup, over %s', (adapter) => {
  it('fails startup for a secret field listed in clear, and for stdout while serving stdio', async () => {
    @Injectable()
    class PinTool {
      @McpTool({ name: 'unlock', description: 'Unlocks', audit: { arguments: ['door', 'pin'] } })
      unlock(): string {
        return 'open';
      }
    }
    @Module({ imports: [McpModule.forRoot({ audit: {} })], providers: [PinTool] })
    class PinApp {}
    expect((await startupError(adapter, { imports: [PinApp] }))?.message).toContain(
      'audit.arguments names "pin", a secret (password)',
    );
    @Module({ imports: [McpModule.forRoot({ audit: { stdio: true } })] })
    class StdioApp {}
    expect((await startupError(adapter, { imports: [StdioApp] }))?.message).toContain('audit.file');
  });
});
