/** A deadline of a {@link DeadlineLane}, for {@link DeadlineLane.cancel}. @internal */
export interface LaneDeadline {
  readonly at: number;
}

interface Entry extends LaneDeadline {
  fire: (() => void) | undefined;
  previous: Entry | undefined;
  next: Entry | undefined;
}

/**
 * Deadlines of one duration, many at once and most cancelled long before they are due (the read
 * time of request bodies): kept in a list in the order they fall due, with one timer for the first
 * of them, instead of a Node timer each. A Node timer per request costs more than reading a small
 * body, most of it building and dropping its timer list whenever the requests in flight drop to
 * none. The timer is unref'd: a lane never keeps the process alive.
 * @internal
 */
export class DeadlineLane {
  private first: Entry | undefined;
  private last: Entry | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly durationMs: number) {}

  /** Calls `fire` once the lane's duration has passed, unless cancelled before. */
  add(fire: () => void): LaneDeadline {
    const entry: Entry = {
      at: performance.now() + this.durationMs,
      fire,
      previous: this.last,
      next: undefined,
    };
    if (this.last) this.last.next = entry;
    else this.first = entry;
    this.last = entry;
    if (!this.timer) this.wakeAt(entry.at);
    return entry;
  }

  /** Cancels `deadline` (nothing happens for one that fired or was cancelled). */
  cancel(deadline: LaneDeadline): void {
    const entry = deadline as Entry;
    if (entry.fire === undefined) return;
    entry.fire = undefined;
    if (entry.previous) entry.previous.next = entry.next;
    else this.first = entry.next;
    if (entry.next) entry.next.previous = entry.previous;
    else this.last = entry.previous;
    entry.previous = entry.next = undefined;
  }

  private wakeAt(at: number): void {
    this.timer = setTimeout(() => this.due(), Math.max(0, Math.ceil(at - performance.now())));
    this.timer.unref();
  }

  /** Fires what fell due; the timer sleeps until the next deadline (or the next one added). */
  private due(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.first && this.first.at <= now) {
      const entry = this.first;
      const fire = entry.fire;
      this.cancel(entry);
      fire?.();
    }
    if (this.first && !this.timer) this.wakeAt(this.first.at);
  }
}
