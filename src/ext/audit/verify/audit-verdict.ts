/** Why a record is bad. @publicApi */
export type AuditProblem =
  /** Not a record: not JSON, or without the SEP-3004 fields or our instance and sequence. */
  | 'malformed'
  /** Its `event_hash` does not match its contents: a field was changed. */
  | 'edited'
  /** Records of its chain are missing before it (deleted), or a checkpoint names one that is gone. */
  | 'missing'
  /** It comes out of its chain's order. */
  | 'reordered'
  /** It does not belong where it is: a forged record, or one put in the place of another. */
  | 'inserted'
  /** A checkpoint whose signature does not verify with the public key. */
  | 'signature'
  /** It comes after the last checkpoint of its chain: nothing signed it yet. */
  | 'unsigned';

/** What {@link verifyAuditTrail} found. @publicApi */
export interface AuditVerdict {
  /** Every chain intact, every checkpoint's signature good, nothing unsigned (unless allowed). */
  readonly ok: boolean;
  readonly records: number;
  readonly chains: number;
  readonly checkpoints: number;
  /** Records after the last checkpoint of their chain (reported even when allowed). */
  readonly unsigned: number;
  /** Calls whose `mcp.call.started` (strict) has no outcome record: they ran, their end is unknown. */
  readonly startedWithoutOutcome: readonly string[];
  /** The first bad record: its place (a line, or a stream entry), its `event_id`, and why. */
  readonly firstBad?: {
    readonly position: number;
    readonly id?: string;
    readonly eventId: string | null;
    readonly problem: AuditProblem;
    readonly message: string;
  };
}

/** One record as read: its place and its text. @publicApi */
export interface AuditEntry {
  /** 1-based: a line of a file, an entry of a stream. */
  readonly position: number;
  /** The stream entry's id, for a stream. */
  readonly id?: string;
  readonly text: string;
}

/** How to verify. @publicApi */
export interface AuditVerifyOptions {
  /** The checkpoint key's SPKI PEM, pinned out of band (never taken from the server audited). */
  readonly publicKeyPem: string;
  /** Report records after the last checkpoint without failing (a trail still being written). */
  readonly allowUnsignedTail?: boolean;
}

/**
 * Where the records are: a JSON lines file, a Redis stream (with an ioredis `Redis` or `Cluster`),
 * or entries read some other way.
 * @publicApi
 */
export type AuditSource =
  | { readonly file: string }
  | {
      readonly redis: { call(command: string, ...args: (string | number)[]): Promise<unknown> };
      readonly stream: string;
    }
  | AsyncIterable<AuditEntry>
  | Iterable<AuditEntry>;
