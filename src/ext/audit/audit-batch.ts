import type { Logger } from '@nestjs/common';
import { chained } from './audit-chain';
import { numbered, signedCheckpoint } from './audit-checkpoint';
import type { AuditDraft, AuditRecord } from './audit-record';
import type { AuditSigner } from './audit-signer';
import type { AuditSink } from './sinks/audit-sink';

/** A chain's end: its instance, its last record's hash and sequence number. @internal */
export interface ChainEnd {
  readonly instance: string;
  readonly head: string | null;
  readonly seq: number;
}

/** A batch linked after a chain's end, ready to write, and the end it makes. @internal */
export interface LinkedBatch {
  readonly records: AuditRecord[];
  readonly head: string | null;
  readonly seq: number;
  /** It ends with a signed checkpoint. */
  readonly signed: boolean;
}

/**
 * Numbers, links and hashes `drafts` after `end`, and — when `checkpoint` is given — a checkpoint
 * signed after them (one the signer fails is left for the next batch, and logged).
 * @internal
 */
export async function linkedBatch(
  drafts: readonly AuditDraft[],
  end: ChainEnd,
  checkpoint: { signer: AuditSigner; sink: AuditSink; final: boolean } | undefined,
  logger: Logger,
): Promise<LinkedBatch> {
  const records: AuditRecord[] = [];
  let head = end.head;
  let seq = end.seq;
  for (const each of drafts) {
    seq++;
    const record = chained(numbered(each, end.instance, seq), head);
    records.push(record);
    head = record.event_hash;
  }
  if (!checkpoint || seq === 0) return { records, head, seq, signed: false };
  const made = await signedCheckpoint(checkpoint.signer, checkpoint.sink, {
    instance: end.instance,
    seq: seq + 1,
    head,
    final: checkpoint.final,
  }).catch((error: unknown) => {
    logger.warn(
      `An audit checkpoint could not be signed (${(error as Error).message}); the next one will be`,
    );
    return undefined;
  });
  if (!made) return { records, head, seq, signed: false };
  records.push(made);
  return { records, head: made.event_hash, seq: seq + 1, signed: true };
}
