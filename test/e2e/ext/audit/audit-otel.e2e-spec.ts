import { generateKeyPairSync } from 'node:crypto';
import { Module } from '@nestjs/common';
import { logs } from '@opentelemetry/api-logs';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs';
import { McpModule } from '../../../../src/index';
import { PemAuditSigner, verifyAuditTrail } from '../../../../src/entry/audit';
import { AuditSideEffects, AuditTools } from '../../../fixtures/audit/audit-tools';
import { ADAPTERS, startTestServer } from '../../../utils/bootstrap';
import { rawToolCall, resultText } from '../../../utils/mcp';

/*
 * The audit trail as OpenTelemetry log records (`sink: 'otel'`): what the application's logger
 * provider exports — and a collector would ship to a SIEM — is the chained, signed trail itself,
 * one record per log record, which verifies with the public key alone.
 */

describe.each(ADAPTERS)('the audit trail as OpenTelemetry logs over %s', (adapter) => {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
  beforeAll(() => {
    logs.setGlobalLoggerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    logs.disable();
  });

  it('emits each record as a log record of nestjs-mcp.audit, and the records verify', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const signer = new PemAuditSigner(
      privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    );
    @Module({
      imports: [McpModule.forRoot({ audit: { sink: 'otel', signer, checkpointEvery: 2 } })],
      providers: [AuditTools, { provide: AuditSideEffects, useValue: new AuditSideEffects() }],
    })
    class LoggedApp {}
    const server = await startTestServer(adapter, { imports: [LoggedApp] });
    try {
      for (let call = 0; call < 3; call++)
        expect(resultText(await rawToolCall(server.url, 'plain', {}))).toBe('plain answer');
    } finally {
      await server.close();
    }
    const emitted = exporter.getFinishedLogRecords();
    expect(emitted.every((record) => record.instrumentationScope.name === 'nestjs-mcp.audit')).toBe(
      true,
    );
    const completed = emitted.filter(
      (record) => record.attributes['audit.event_type'] === 'mcp.call.completed',
    );
    expect(completed).toHaveLength(3);
    const entries = emitted.map((record, at) => ({ position: at + 1, text: String(record.body) }));
    const verdict = await verifyAuditTrail(entries, {
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    expect(verdict).toMatchObject({ ok: true, unsigned: 0 });
    expect(verdict.checkpoints).toBeGreaterThanOrEqual(2);
  });
});
