import type { ServerResponse } from 'node:http';
import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { MIN_RETRY_AFTER_MS, type ShareLimits } from '../../kit/fair-share';
import { FairShareLedger } from '../../kit/fair-share-ledger';

/** Answers this small are never counted: ordinary skill files cost a read nothing here. @internal */
export const UNCOUNTED_READ_BYTES = 65_536;

/**
 * The bytes of skill-file answers being sent at once, in total (`skills.maxInFlightReadBytes`) and
 * per caller (`skills.maxInFlightReadBytesPerCaller`, a share that shrinks for the heaviest callers
 * once the total is three-quarters full). An answer is counted by its encoded contents — the JSON
 * text of its `text` or base64 `blob`, what goes on the wire — from the read until its response
 * closes; one past the bounds is refused with the retryable -32000 instead of being sent. Answers of
 * at most {@link UNCOUNTED_READ_BYTES} are not counted.
 * @internal
 */
export class SkillReadBudget {
  /** Bytes in flight, by caller (a digest of the caller's partition, never the partition). */
  private readonly ledger: FairShareLedger;

  constructor(limits: ShareLimits) {
    this.ledger = new FairShareLedger(limits);
  }

  /** Bytes counted now, for tests and diagnostics. */
  get bytesInFlight(): number {
    return this.ledger.total;
  }

  /** Whether an answer of `bytes` is counted at all. */
  counts(bytes: number): boolean {
    return bytes > UNCOUNTED_READ_BYTES;
  }

  /**
   * Counts `bytes` for `caller` until `response` closes, or throws the -32000 that says which
   * bound it would pass and when to try again.
   */
  reserve(caller: string, bytes: number, response: ServerResponse): void {
    if (!this.counts(bytes)) return;
    const taken = this.ledger.take(caller, bytes);
    if (!taken.taken && taken.refusal === 'store')
      throw busy('Server busy: too many skill file bytes in flight', {
        maxInFlightReadBytes: this.ledger.limits.capacity,
      });
    if (!taken.taken)
      throw busy('Server busy: too many skill file bytes in flight for this caller', {
        maxInFlightReadBytesPerCaller:
          taken.refusal === 'share'
            ? this.ledger.callerLimitNow()
            : this.ledger.limits.perPartition,
      });
    if (response.closed || response.destroyed) taken.release();
    else response.once('close', taken.release);
  }
}

function busy(message: string, limit: Record<string, number>): ProtocolError {
  return new ProtocolError(McpErrorCode.ServerBusy, message, {
    ...limit,
    retryAfterMs: MIN_RETRY_AFTER_MS,
  });
}
