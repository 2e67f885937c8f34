import { partitionLimit, shareRefusal, type ShareLimits, type ShareRefusal } from './fair-share';

/** What {@link FairShareLedger.take} answers: the amount taken and how to give it back, or why not. @internal */
export type LedgerTake =
  | { readonly taken: true; readonly release: () => void }
  | { readonly taken: false; readonly refusal: ShareRefusal };

/**
 * What callers hold of a resource of this process for a while (streams, bytes being sent), in
 * total and by caller, within {@link ShareLimits} and the fair-share rule of {@link shareRefusal}.
 * @internal
 */
export class FairShareLedger {
  private held = 0;
  private readonly byCaller = new Map<string, number>();

  constructor(readonly limits: ShareLimits) {}

  /** What is held now, in all. */
  get total(): number {
    return this.held;
  }

  /** Callers holding anything now. */
  get callers(): number {
    return this.byCaller.size;
  }

  /** The most one caller may hold now (its own limit, or less while the whole is nearly full). */
  callerLimitNow(): number {
    return Math.floor(partitionLimit(this.limits, this.held));
  }

  /**
   * Takes `amount` for `caller`, or says why not and changes nothing. The release gives it back
   * once, however often it is called.
   */
  take(caller: string, amount: number): LedgerTake {
    const held = this.byCaller.get(caller) ?? 0;
    const refusal = shareRefusal(this.limits, held, this.held, amount);
    if (refusal) return { taken: false, refusal };
    this.held += amount;
    this.byCaller.set(caller, held + amount);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.held -= amount;
      const left = (this.byCaller.get(caller) ?? amount) - amount;
      if (left > 0) this.byCaller.set(caller, left);
      else this.byCaller.delete(caller);
    };
    return { taken: true, release };
  }
}
