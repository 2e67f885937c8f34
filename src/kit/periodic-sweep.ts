/**
 * The periodic sweep of an in-memory store: an unref'd interval (it never keeps the process alive)
 * started when the store first holds something; an interval of 0 ms disables it.
 * @internal
 */
export class PeriodicSweep {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly sweep: () => void,
  ) {}

  /** Starts the interval unless it runs already or is disabled. */
  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(this.sweep, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the interval; a later `start` begins it again. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
