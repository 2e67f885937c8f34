/** The SEP-3004 outcome of an audit record. @publicApi */
export type AuditOutcome = 'allowed' | 'denied' | 'deferred' | 'error';

/** A JSON value an audit record holds: strings, booleans, null, arrays and objects (no numbers). */
export type AuditValue =
  string | boolean | null | readonly AuditValue[] | { readonly [key: string]: AuditValue };

/** Our own registered extension's type id in a record's `extensions`. @internal */
export const AUDIT_EXTENSION = 'nestjs-mcp';

/**
 * One audit record: the fields of the SEP-3004 draft ("Tamper-Evident Audit Record Contract"),
 * named exactly so, with this module's own context under `extensions["nestjs-mcp"]`. Every value is
 * a string, a boolean or null (SEP-3004 keeps numbers out of the hashed body); `event_hash` is the
 * SHA-256 of the RFC 8785 form of everything else, and `previous_hash` links to the previous record
 * of the same instance's chain. docs/audit.md shows one of each event type.
 * @publicApi
 */
export interface AuditRecord {
  readonly event_id: string;
  /** RFC 3339, UTC, milliseconds (`Date.prototype.toISOString`). */
  readonly occurred_at: string;
  /** The caller's partition, never a credential; `system` for the trail's own records. */
  readonly principal_id: string;
  /** `mcp.call.completed`, `mcp.call.refused`, `mcp.key.activated`, `audit.checkpoint`… */
  readonly event_type: string;
  /** The tool or prompt name, resource or skill URI; null where no target applies. */
  readonly tool_name: string | null;
  readonly outcome: AuditOutcome;
  readonly extensions: { readonly [type: string]: { readonly [key: string]: AuditValue } };
  /** Hex SHA-256 of the previous record of this instance's chain; null for its first. */
  readonly previous_hash: string | null;
  /** Hex SHA-256 of this record's RFC 8785 form without `event_hash`. */
  readonly event_hash: string;
}

/** A record before it is chained: everything but `previous_hash` and `event_hash`. @internal */
export type AuditDraft = Omit<AuditRecord, 'previous_hash' | 'event_hash'>;
