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

/**
 * A record as the chain made it: its fields in RFC 8785's member order (as verifiers and sinks that
 * print it expect) and, privately, its JSON text — its RFC 8785 form, made once when it was hashed.
 */
class ChainedRecord implements AuditRecord {
  readonly event_hash!: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly extensions: AuditRecord['extensions'];
  readonly occurred_at: string;
  readonly outcome: AuditRecord['outcome'];
  readonly previous_hash: string | null;
  readonly principal_id: string;
  readonly tool_name: string | null;
  readonly #json: string;

  constructor(draft: AuditDraft, previousHash: string | null) {
    this.event_id = draft.event_id;
    this.event_type = draft.event_type;
    this.extensions = draft.extensions;
    this.occurred_at = draft.occurred_at;
    this.outcome = draft.outcome;
    this.previous_hash = previousHash;
    this.principal_id = draft.principal_id;
    this.tool_name = draft.tool_name;
    // Without its event_hash yet, the record is its hashed body.
    const canonical = writtenAsIs(this.extensions) ? JSON.stringify(this) : rfc8785Json(this);
    (this as { event_hash: string }).event_hash = hash('sha256', canonical, 'hex');
    // `event_hash` sorts before every other field, so this text is the record's own RFC 8785 form.
    this.#json = `{"event_hash":"${this.event_hash}",${canonical.slice(1)}`;
  }

  static jsonOf(record: AuditRecord): string | undefined {
    return #json in record ? record.#json : undefined;
  }
}

/**
 * Whether a record with these extensions is already its RFC 8785 form as `JSON.stringify` writes
 * it: our extension alone, its members in order (as `draft` and `numbered` make them) and each a
 * string, a boolean or null (nothing nested to put in order). Most records are; the rest are
 * canonicalized the general way.
 */
function writtenAsIs(extensions: AuditRecord['extensions']): boolean {
  let previous = '';
  for (const type in extensions) if (type !== AUDIT_EXTENSION) return false;
  const own = extensions[AUDIT_EXTENSION];
  for (const name in own) {
    const value = own[name];
    if (name <= previous || isDigit(name.charCodeAt(0))) return false;
    if (typeof value !== 'string' && typeof value !== 'boolean' && value !== null) return false;
    previous = name;
  }
  return true;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** `draft` linked after `previousHash` and hashed (a new record; the draft is not changed). @internal */
export function chained(draft: AuditDraft, previousHash: string | null): AuditRecord {
  return new ChainedRecord(draft, previousHash);
}

/** A record's JSON text, as sinks write it: the one made when it was chained, or made now. @internal */
export function recordJson(record: AuditRecord): string {
  return ChainedRecord.jsonOf(record) ?? JSON.stringify(record);
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
