import type { AuditRecord } from '../audit-record';

/** Which chain a batch of records continues. @publicApi */
export interface AuditChainPosition {
  /** The instance whose chain it is (a fresh id each time a process starts). */
  readonly instance: string;
  /** The chain's last record's `event_hash` before this batch, null when the batch starts it. */
  readonly previousHash: string | null;
  /** The last record's `seq` in the batch, as a decimal string. */
  readonly lastSeq: string;
}

/**
 * Where an audit trail's records go: JSON lines, a Redis stream, OpenTelemetry Logs, or yours
 * (the `audit.sink` option). The trail hands it each batch in chain order, one batch at a time.
 * @publicApi
 */
export interface AuditSink {
  /** Appends `records` in order; rejects unless every one of them was written. */
  write(records: readonly AuditRecord[], position: AuditChainPosition): Promise<void>;
  /**
   * The last record of every instance's chain the sink holds (a fleet's), for checkpoints that
   * sign them all; absent for a sink of one chain.
   */
  heads?(): Promise<Readonly<Record<string, { readonly seq: string; readonly hash: string }>>>;
  close?(): void | Promise<void>;
}

/**
 * What a sink throws when it no longer holds the chain's head (a Redis that restarted without
 * persistence): the writer starts a new chain. @internal
 */
export class AuditChainLostError extends Error {}
