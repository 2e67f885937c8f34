import { createHash } from 'node:crypto';
import { chained, checkpointSigningInput } from './audit-chain';
import { draft, SYSTEM_PRINCIPAL } from './audit-drafts';
import {
  AUDIT_EXTENSION,
  type AuditDraft,
  type AuditRecord,
  type AuditValue,
} from './audit-record';
import type { AuditSigner } from './audit-signer';
import type { AuditSink } from './sinks/audit-sink';

/** Where in its chain a checkpoint goes. @internal */
export interface CheckpointPlace {
  readonly instance: string;
  /** The checkpoint's own sequence number. */
  readonly seq: number;
  /** The chain's head it follows (and signs). */
  readonly head: string | null;
  /** The last checkpoint of a trail that closed cleanly. */
  readonly final: boolean;
}

/**
 * `record` with its chain's instance and sequence number in its own fields, placed in RFC 8785's
 * member order (a draft's fields are in that order: see `draft`).
 * @internal
 */
export function numbered(record: AuditDraft, instance: string, seq: number): AuditDraft {
  const own = record.extensions[AUDIT_EXTENSION] ?? {};
  const fields: Record<string, AuditValue> = {};
  let instancePlaced = false;
  let seqPlaced = false;
  for (const name in own) {
    if (name === 'instance' || name === 'seq') continue;
    if (!instancePlaced && name > 'instance') {
      fields.instance = instance;
      instancePlaced = true;
    }
    if (!seqPlaced && name > 'seq') {
      fields.seq = String(seq);
      seqPlaced = true;
    }
    fields[name] = own[name] as AuditValue;
  }
  if (!instancePlaced) fields.instance = instance;
  if (!seqPlaced) fields.seq = String(seq);
  return { ...record, extensions: { ...record.extensions, [AUDIT_EXTENSION]: fields } };
}

/**
 * An `audit.checkpoint` record, chained after `place.head`: the heads of this chain and of every
 * instance's chain the sink knows (a fleet's), signed by `signer` over the record itself.
 * @internal
 */
export async function signedCheckpoint(
  signer: AuditSigner,
  sink: AuditSink,
  place: CheckpointPlace,
): Promise<AuditRecord> {
  const heads: Record<string, AuditValue> = { ...((await sink.heads?.()) ?? {}) };
  heads[place.instance] = { seq: String(place.seq - 1), hash: place.head };
  const publicKey = await signer.publicKeyPem();
  const checkpoint = {
    heads,
    final: place.final,
    alg: signer.algorithm,
    key_id: keyIdOf(publicKey),
  };
  const body = numbered(
    draft('audit.checkpoint', SYSTEM_PRINCIPAL, null, 'allowed', { checkpoint }),
    place.instance,
    place.seq,
  );
  const signature = await signer.sign(
    checkpointSigningInput({ ...body, previous_hash: place.head }),
  );
  const own = body.extensions[AUDIT_EXTENSION];
  const signed = {
    ...own,
    checkpoint: { ...checkpoint, signature: Buffer.from(signature).toString('base64url') },
  };
  return chained(
    { ...body, extensions: { ...body.extensions, [AUDIT_EXTENSION]: signed } },
    place.head,
  );
}

/** A key's id in checkpoints: the hex SHA-256 of its SPKI (DER). @internal */
export function keyIdOf(publicKeyPem: string): string {
  const body = publicKeyPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  return createHash('sha256').update(Buffer.from(body, 'base64')).digest('hex');
}
