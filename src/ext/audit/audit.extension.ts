import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import {
  defineMcpExtension,
  McpCoreEvents,
  McpRedisConnection,
  McpTelemetry,
  type McpExtension,
} from '../../extension-api';
import { AuditObserver } from './audit-observer';
import { AuditSigner } from './audit-signer';
import { AuditWriter } from './audit-writer';
import { keyIdOf } from './audit-checkpoint';
import {
  AUDIT_OPTIONS,
  resolveAuditOptions,
  type McpAuditOptions,
  type ResolvedAuditOptions,
} from './audit.options';
import { PemAuditSigner } from './signing/pem-audit-signer';
import type { AuditSink } from './sinks/audit-sink';
import { JsonLinesAuditSink } from './sinks/jsonl-audit.sink';
import { OpenTelemetryLogsAuditSink } from './sinks/otel-logs-audit.sink';
import { defaultAuditStream, RedisStreamAuditSink } from './sinks/redis-stream-audit.sink';

/**
 * Installs the audit trail (docs/audit.md): observes the core's events (`McpCoreEvents`), turns
 * each into SEP-3004 records chained per instance, and writes them to the sink with signed
 * checkpoints; on shutdown, what is queued and a final checkpoint. Idle unless the `audit` option
 * is given.
 * @internal
 */
@Injectable()
export class McpAuditInstaller implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpAudit');
  private writer: AuditWriter | undefined;
  private sink: AuditSink | undefined;
  private signer: AuditSigner | undefined;

  constructor(
    @Inject(AUDIT_OPTIONS) private readonly options: ResolvedAuditOptions,
    private readonly events: McpCoreEvents,
    private readonly redis: McpRedisConnection,
    private readonly telemetry: McpTelemetry,
    @Optional() @Inject(AuditSigner) private readonly provided?: AuditSigner,
  ) {}

  onModuleInit(): void {
    if (!this.options.enabled) return;
    const sink = this.sinkOf(this.options.sink);
    const signer = this.options.signer ?? this.provided ?? this.ephemeralSigner();
    const sinkName = typeof this.options.sink === 'string' ? this.options.sink : 'custom';
    this.sink = sink;
    this.signer = signer;
    this.writer = new AuditWriter(
      sink,
      signer,
      {
        instance: randomUUID(),
        sinkName,
        checkpointEvery: this.options.checkpointEvery,
        checkpointIntervalMs: this.options.checkpointIntervalMs,
        queueBound: this.options.queueBound,
        strictTimeoutMs: this.options.strictTimeoutMs,
        countDropped: (count, reason) =>
          this.telemetry.auditRecordsDropped(count, sinkName, reason),
      },
      this.logger,
    );
    this.events.observe(new AuditObserver(this.writer, this.options.strict));
    this.logger.log(
      `Audit trail on (${sinkName}, ${this.options.strict ? 'strict' : 'best-effort'}; checkpoints signed ${signer.algorithm})`,
    );
  }

  /** Writes what is queued and a final checkpoint, while the sink (Redis) is still there. */
  async beforeApplicationShutdown(): Promise<void> {
    const writer = this.writer;
    this.writer = undefined;
    await writer?.close();
    await Promise.resolve(this.sink?.close?.()).catch(() => undefined);
    // The app's signer (an HSM session, a KMS client) is closed with the module, as KeyWrapper is.
    await Promise.resolve(this.signer?.close?.()).catch(() => undefined);
  }

  private sinkOf(sink: ResolvedAuditOptions['sink']): AuditSink {
    switch (sink) {
      case 'jsonl':
        return new JsonLinesAuditSink(this.options.file);
      case 'otel':
        return new OpenTelemetryLogsAuditSink();
      case 'redis':
        if (!this.redis.configured)
          throw new InvalidModuleOptionsError(
            'audit.sink',
            'is "redis", which needs the module\'s redis option',
          );
        return new RedisStreamAuditSink(
          this.redis,
          this.options.stream ?? defaultAuditStream(this.redis),
        );
      default:
        return sink;
    }
  }

  private ephemeralSigner(): AuditSigner {
    const signer = PemAuditSigner.ephemeral();
    void signer
      .publicKeyPem()
      .then((pem) =>
        this.logger.warn(
          `*** No audit.signer: checkpoints are signed with an EPHEMERAL key (id ${keyIdOf(pem)}), new at each start. ` +
            `Verify with this public key: ${pem.replace(/\n/g, '\\n')} — configure a signer (an HSM, KMS or a PEM key) in production. ***`,
        ),
      );
    return signer;
  }
}

/** The audit extension's providers. @internal */
const AUDIT_EXTENSION_PROVIDERS: Provider[] = [McpAuditInstaller];

/**
 * The audit trail (docs/audit.md): the `audit` option, off unless given.
 * @internal
 */
export const auditExtension: McpExtension<'audit', McpAuditOptions> = defineMcpExtension<
  'audit',
  McpAuditOptions,
  ResolvedAuditOptions
>({
  name: 'audit',
  options: { key: 'audit', token: AUDIT_OPTIONS, resolve: resolveAuditOptions },
  enabledBy: (options) => options !== undefined && options.enabled !== false,
  providers: () => AUDIT_EXTENSION_PROVIDERS,
});
