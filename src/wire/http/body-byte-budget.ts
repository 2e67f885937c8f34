/**
 * The memory large request bodies may hold at once. The first `smallBodyBytes` of every body are
 * free, so ordinary requests are never refused and many stalled small bodies cost nothing here;
 * bytes beyond them are reserved as they arrive and given back when the response ends. A body
 * that would overdraw the budget is refused (503) instead of buffered.
 * @internal
 */
export class BodyByteBudget {
  private used = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly smallBodyBytes: number,
  ) {}

  /** A reservation for one body; `release` gives everything it took back, once. */
  open(): BodyReservation {
    let total = 0;
    let held = 0;
    let released = false;
    return {
      take: (bytes) => {
        if (released) return false;
        total += bytes;
        const wanted = Math.max(0, total - this.smallBodyBytes) - held;
        if (wanted === 0) return true;
        if (this.used + wanted > this.maxBytes) return false;
        this.used += wanted;
        held += wanted;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.used -= held;
        held = 0;
      },
    };
  }

  /** Bytes currently reserved, for tests and diagnostics. */
  get reservedBytes(): number {
    return this.used;
  }
}

/** One body's share of a {@link BodyByteBudget}. @internal */
export interface BodyReservation {
  /** Reserves `bytes` more; false (nothing reserved) when the budget cannot cover them. */
  take(bytes: number): boolean;
  release(): void;
}
