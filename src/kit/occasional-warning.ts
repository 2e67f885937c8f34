/**
 * A warning that is logged at most once per window, with how many times it was suppressed since:
 * for what anyone who can reach Redis may repeat at will (a forged channel message), where one
 * line per occurrence would let them flood the log.
 * @internal
 */
export class OccasionalWarning {
  private nextAt = 0;
  private suppressed = 0;

  constructor(
    private readonly warn: (message: string) => void,
    private readonly windowMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  report(message: string): void {
    const now = this.now();
    if (now < this.nextAt) {
      this.suppressed++;
      return;
    }
    const since = this.suppressed > 0 ? ` (and ${this.suppressed} more since the last report)` : '';
    this.suppressed = 0;
    this.nextAt = now + this.windowMs;
    this.warn(`${message}${since}`);
  }
}
