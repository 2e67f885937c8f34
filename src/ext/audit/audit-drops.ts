import type { Logger } from '@nestjs/common';

/**
 * What a best-effort trail could not keep: counted at once (the `nestjs_mcp.audit.records.dropped`
 * metric), logged once, and held until the chain itself can say how many (an
 * `audit.records_dropped` record), so the trail shows its own gap.
 * @internal
 */
export class AuditDrops {
  private pending = 0;
  private logged = false;

  constructor(
    private readonly count: (count: number, reason: string) => void,
    private readonly logger: Logger,
    private readonly queueBound: number,
  ) {}

  drop(count: number, reason: string): void {
    this.pending += count;
    this.count(count, reason);
    if (this.logged) return;
    this.logged = true;
    this.logger.error(
      `The audit trail dropped records (${reason}: its queue holds ${this.queueBound}); ` +
        'they are counted in nestjs_mcp.audit.records.dropped and an audit.records_dropped record says how many. Logged once.',
    );
  }

  /** How many were dropped since the chain last said so (now to be said). */
  take(): number {
    const taken = this.pending;
    this.pending = 0;
    return taken;
  }

  /** What {@link take} gave, when the record saying so was not written. */
  giveBack(count: number): void {
    this.pending += count;
  }
}
