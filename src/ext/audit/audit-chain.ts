import { hash } from 'node:crypto';
import { rfc8785Json } from '../../kit/rfc8785-json';
import {
  AUDIT_EXTENSION,
  type AuditDraft,
  type AuditRecord,
  type AuditValue,
} from './audit-record';

/** What a checkpoint's signature is over: this tag, a newline, the RFC 8785 body without it. */
const CHECKPOINT_DOMAIN = 'nestjs-mcp-audit-checkpoint-v1\n';

/**
 * The hex SHA-256 of a record's protected body: the RFC 8785 form of every field but `event_hash`
 * (and SEP-3004's reserved `anchor_witness`), `previous_hash` included.
 * @internal
 */
export function eventHashOf(record: Readonly<Record<string, unknown>>): string {
  const body: Record<string, unknown> = { ...record };
  delete body.event_hash;
  delete body.anchor_witness;
  return hash('sha256', rfc8785Json(body), 'hex');
}

/** Each chained record's JSON text: its RFC 8785 form with `event_hash` first (made once, when hashed). */
const recordTexts = new WeakMap<AuditRecord, string>();

/** `draft` linked after `previousHash` and hashed (a new record; the draft is not changed). @internal */
export function chained(draft: AuditDraft, previousHash: string | null): AuditRecord {
  // In RFC 8785's member order (see `draft`), so that hashing it copies nothing at this level.
  const linked: Record<string, unknown> = {
    event_id: draft.event_id,
    event_type: draft.event_type,
    extensions: draft.extensions,
    occurred_at: draft.occurred_at,
    outcome: draft.outcome,
    previous_hash: previousHash,
    principal_id: draft.principal_id,
    tool_name: draft.tool_name,
  };
  // A draft has no event_hash to leave out: its RFC 8785 form is hashed as it is.
  const canonical = rfc8785Json(linked);
  const eventHash = hash('sha256', canonical, 'hex');
  linked.event_hash = eventHash;
  const record = linked as unknown as AuditRecord;
  // `event_hash` sorts before every other field, so this text is the record's own RFC 8785 form.
  recordTexts.set(record, `{"event_hash":"${eventHash}",${canonical.slice(1)}`);
  return record;
}

/** A record's JSON text, as sinks write it: the one made when it was chained, or made now. @internal */
export function recordJson(record: AuditRecord): string {
  return recordTexts.get(record) ?? JSON.stringify(record);
}

/** Our extension's fields of a record. @internal */
export function ownFields(record: {
  readonly extensions?: unknown;
}): Readonly<Record<string, AuditValue>> | undefined {
  const extensions = record.extensions as Record<string, unknown> | undefined;
  const own = extensions?.[AUDIT_EXTENSION];
  return own !== null && typeof own === 'object'
    ? (own as Readonly<Record<string, AuditValue>>)
    : undefined;
}

/**
 * The bytes a checkpoint's signature covers: the record as it will be chained (its
 * `previous_hash`, the heads it names), without `event_hash` and without the signature itself.
 * @internal
 */
export function checkpointSigningInput(record: Readonly<Record<string, unknown>>): Buffer {
  const body: Record<string, unknown> = { ...record };
  delete body.event_hash;
  delete body.anchor_witness;
  const own = ownFields(record) ?? {};
  const checkpoint = { ...(own.checkpoint as Record<string, unknown> | undefined) };
  delete checkpoint.signature;
  body.extensions = {
    ...(record.extensions as Record<string, unknown>),
    [AUDIT_EXTENSION]: { ...own, checkpoint },
  };
  return Buffer.from(CHECKPOINT_DOMAIN + rfc8785Json(body), 'utf8');
}
