import type { Logger } from '@nestjs/common';

/**
 * What a best-effort trail could not keep: counted at once (the `nestjs_mcp.audit.records.dropped`
 * metric), logged once, and held until the chain itself can say how many (an
 * `audit.records_dropped` record), so the trail shows its own gap.
 * @internal
 */
export class AuditDrops {
  /** Not yet said in the chain, by reason. */
  private pending = new Map<string, number>();
  private logged = false;

  constructor(
    private readonly count: (count: number, reason: string) => void,
    private readonly logger: Logger,
    private readonly queueBound: number,
  ) {}

  drop(count: number, reason: string): void {
    this.pending.set(reason, (this.pending.get(reason) ?? 0) + count);
    this.count(count, reason);
    if (this.logged) return;
    this.logged = true;
    this.logger.error(
      `The audit trail dropped records (${reason === 'queue_full' ? `queue_full: its queue holds ${this.queueBound}` : reason}); ` +
        'they are counted in nestjs_mcp.audit.records.dropped and an audit.records_dropped record says how many. Logged once.',
    );
  }

  /** How many were dropped, by reason, since the chain last said so (now to be said). */
  take(): ReadonlyMap<string, number> {
    const taken = this.pending;
    if (taken.size > 0) this.pending = new Map();
    return taken;
  }

  /** What {@link take} gave, when the records saying so were not written. */
  giveBack(taken: ReadonlyMap<string, number>): void {
    for (const [reason, count] of taken)
      this.pending.set(reason, (this.pending.get(reason) ?? 0) + count);
  }
}
