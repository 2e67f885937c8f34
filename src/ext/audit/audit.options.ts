import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { booleanOption, implementing, objectOption, positiveIntegers } from '../../extension-api';
import type { AuditSigner } from './audit-signer';
import type { AuditSink } from './sinks/audit-sink';

/**
 * The audit trail (docs/audit.md): a tamper-evident record of every call, ask, answer, refusal and
 * key operation, hash-chained and signed at checkpoints. Off unless given.
 * @publicApi
 */
export interface McpAuditOptions {
  /** `false` leaves the trail out. Default `true` once the `audit` group is given. */
  enabled?: boolean;
  /**
   * Where records go: `jsonl` (JSON lines to `file`, or to stdout without one; the default),
   * `redis` (one Redis stream for the fleet, with the module's `redis` option), `otel`
   * (OpenTelemetry Logs, through `@opentelemetry/api-logs`), or a sink of your own.
   */
  sink?: 'jsonl' | 'redis' | 'otel' | AuditSink;
  /** The JSON lines file (appended to). Without it, `jsonl` writes to stdout. */
  file?: string;
  /** The Redis stream's key. Default `{<redis.keyPrefix>audit}` (hash-tagged: one cluster slot). */
  stream?: string;
  /**
   * `best-effort` (default): records queue up to `queueBound`, a call never waits for them, and
   * what does not fit is counted (`nestjs_mcp.audit.records.dropped`) and logged once. `strict`: a
   * call's `started` record is written before anything of it runs, and while the sink cannot take
   * it the call is refused with `-32000` and `data.retryAfterMs`; its outcome record follows, and
   * if that fails the answer still goes out.
   */
  policy?: 'best-effort' | 'strict';
  /** Signs checkpoints; without one the trail is chained but unsigned (verify with `--unsigned`). */
  signer?: AuditSigner;
  /** A checkpoint after this many records of this instance. Default 1,000. */
  checkpointEvery?: number;
  /** A checkpoint at least this often while records are written, in ms. Default 60,000. */
  checkpointIntervalMs?: number;
  /** Records waiting for the sink at most; more are dropped and counted. Default 10,000. */
  queueBound?: number;
  /** How long a strict call waits for its `started` record, in ms. Default 2,000. */
  strictTimeoutMs?: number;
  /**
   * Set when the module serves MCP over stdio: stdout is the protocol then, so `jsonl` without a
   * `file` fails startup. Default `false`.
   */
  stdio?: boolean;
}

/** The audit options resolved. @internal */
export interface ResolvedAuditOptions {
  readonly enabled: boolean;
  readonly sink: 'jsonl' | 'redis' | 'otel' | AuditSink;
  readonly file: string | undefined;
  readonly stream: string | undefined;
  readonly strict: boolean;
  readonly signer: AuditSigner | undefined;
  readonly checkpointEvery: number;
  readonly checkpointIntervalMs: number;
  readonly queueBound: number;
  readonly strictTimeoutMs: number;
}

/** Injection token of the resolved audit options. @internal */
export const AUDIT_OPTIONS = Symbol('AuditOptions');

/** Fills the `audit` defaults and checks each value, naming the first bad option. @internal */
export function resolveAuditOptions(audit: McpAuditOptions | undefined): ResolvedAuditOptions {
  objectOption('audit', audit);
  const sink = audit?.sink ?? 'jsonl';
  if (typeof sink === 'string' && !['jsonl', 'redis', 'otel'].includes(sink))
    throw new InvalidModuleOptionsError('audit.sink', 'must be "jsonl", "redis", "otel" or a sink');
  if (typeof sink !== 'string') implementing('audit.sink', sink, ['write']);
  const file = audit?.file;
  if (file !== undefined && (typeof file !== 'string' || file === ''))
    throw new InvalidModuleOptionsError('audit.file', 'must be a file path');
  const stdio = booleanOption('audit.stdio', audit?.stdio, false);
  if (sink === 'jsonl' && file === undefined && stdio && audit?.enabled !== false)
    throw new InvalidModuleOptionsError(
      'audit.file',
      'is required when the module serves stdio: stdout is the protocol, never an audit sink',
    );
  const policy = audit?.policy ?? 'best-effort';
  if (policy !== 'best-effort' && policy !== 'strict')
    throw new InvalidModuleOptionsError('audit.policy', 'must be "best-effort" or "strict"');
  const stream = audit?.stream;
  if (stream !== undefined && (typeof stream !== 'string' || stream === ''))
    throw new InvalidModuleOptionsError('audit.stream', 'must be a Redis key');
  return {
    enabled: audit !== undefined && booleanOption('audit.enabled', audit.enabled, true),
    sink,
    file,
    stream,
    strict: policy === 'strict',
    signer: implementing('audit.signer', audit?.signer, ['publicKeyPem', 'sign']),
    ...positiveIntegers('audit', audit, {
      checkpointEvery: 1_000,
      checkpointIntervalMs: 60_000,
      queueBound: 10_000,
      strictTimeoutMs: 2_000,
    }),
  };
}
