import type { AuditRecord } from '../audit-record';
import type { AuditSink } from './audit-sink';
import { requireOptionalPeer } from '../../../kit/optional-peer';
import { recordJson } from '../audit-chain';

/** The part of `@opentelemetry/api-logs` the sink uses. */
interface LogsApi {
  logs: {
    getLogger(
      name: string,
      version?: string,
    ): {
      emit(record: {
        timestamp?: number;
        severityNumber?: number;
        severityText?: string;
        body?: string;
        attributes?: Record<string, string>;
      }): void;
    };
  };
}

/** OpenTelemetry's `INFO` severity number. */
const SEVERITY_INFO = 9;

function loadLogsApi(): LogsApi {
  return requireOptionalPeer('@opentelemetry/api-logs', 'The "otel" audit sink');
}

/**
 * Audit records as OpenTelemetry log records (logger `nestjs-mcp.audit`): the record's JSON as the
 * body, its `event_type`, `event_id`, `event_hash` and `principal_id` as attributes, so they reach a
 * SIEM through a collector. The logger provider the application registered decides where they go;
 * `emit` cannot fail, so a strict trail on this sink knows only that the provider took them.
 * `@opentelemetry/api-logs` (an optional peer) is loaded when this sink is made.
 * @internal
 */
export class OpenTelemetryLogsAuditSink implements AuditSink {
  private readonly logger = loadLogsApi().logs.getLogger('nestjs-mcp.audit');

  write(records: readonly AuditRecord[]): Promise<void> {
    for (const record of records)
      this.logger.emit({
        timestamp: Date.parse(record.occurred_at),
        severityNumber: SEVERITY_INFO,
        severityText: 'INFO',
        body: recordJson(record),
        attributes: {
          'audit.event_type': record.event_type,
          'audit.event_id': record.event_id,
          'audit.event_hash': record.event_hash,
          'audit.principal_id': record.principal_id,
        },
      });
    return Promise.resolve();
  }
}
