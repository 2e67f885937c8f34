import type { AuditDraft } from './audit-record';
import { AuditUnavailableError } from './audit-unavailable.error';

/** A queued record, with the writer waiting for it when it is a strict one. @internal */
export interface AuditPending {
  readonly draft: AuditDraft;
  readonly done?: { resolve(): void; reject(error: Error): void };
}

/**
 * Records still to be drafted: an event the writer drafts when it next writes — with the other
 * records of that batch, in one pass whose code and data stay warm — instead of on the call's path.
 * @internal
 */
export interface AuditDeferred {
  /** The records, drafted now (with the time they happened, captured before). */
  drafts(): readonly AuditDraft[];
}

/**
 * A strict record and the promise of its write: rejected with {@link AuditUnavailableError} after
 * `timeoutMs`, when `withdraw` takes it out of the queue (a record still queued is never written
 * for a call already refused).
 * @internal
 */
export function awaitedRecord(
  draft: AuditDraft,
  timeoutMs: number,
  retryAfterMs: number,
  withdraw: (pending: AuditPending) => void,
): { pending: AuditPending; written: Promise<void> } {
  let pending!: AuditPending;
  const written = new Promise<void>((resolve, reject) => {
    const timeout = setTimeout(() => {
      withdraw(pending);
      reject(new AuditUnavailableError(retryAfterMs));
    }, timeoutMs);
    const settle = (then: () => void) => {
      clearTimeout(timeout);
      then();
    };
    pending = {
      draft,
      done: {
        resolve: () => settle(resolve),
        reject: (error) => settle(() => reject(error)),
      },
    };
  });
  return { pending, written };
}
