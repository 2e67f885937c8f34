import { StateHandleRepositoryError } from './state-handle-repository.error';
import type { StateHandleRecord, StateHandleRepository } from './state-handle-repository.interface';

/** Options of {@link MemoryStateHandleRepository}. @publicApi */
export interface MemoryStateHandleRepositoryOptions {
  /** Records held at once; storing one more is refused. Default 10,000. */
  maxEntries?: number;
  /** How often every expired record is dropped, in ms (an unref'd timer); 0 disables. Default 60,000. */
  sweepIntervalMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/**
 * The default {@link StateHandleRepository}: records in this process's memory, so a handle can only
 * be redeemed on the instance that issued it (a fleet needs a shared repository such as
 * {@link RedisStateHandleRepository}). Every operation runs synchronously from lookup to write, so
 * it is atomic. Expired records are dropped when touched and by a periodic sweep; with `maxEntries`
 * unexpired records held, `put` of a new handle rejects with {@link StateHandleRepositoryError}
 * (`full`).
 *
 * @publicApi
 */
export class MemoryStateHandleRepository implements StateHandleRepository {
  private readonly records = new Map<string, StateHandleRecord>();
  private readonly maxEntries: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStateHandleRepositoryOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
    if (!Number.isSafeInteger(this.maxEntries) || this.maxEntries <= 0)
      throw new RangeError('maxEntries must be a positive integer');
  }

  /** Records currently held (expired ones may remain until swept). */
  get size(): number {
    return this.records.size;
  }

  put(handle: string, record: StateHandleRecord): Promise<void> {
    const now = this.now();
    if (!this.records.has(handle) && this.records.size >= this.maxEntries) {
      this.sweep(now);
      if (this.records.size >= this.maxEntries)
        return Promise.reject(new StateHandleRepositoryError('full'));
    }
    if (record.expiresAt > now) {
      this.records.set(handle, { ...record });
      this.startTimer();
    } else {
      this.records.delete(handle);
    }
    return Promise.resolve();
  }

  redeem(
    handle: string,
    binding: string,
    replacement: string,
  ): Promise<StateHandleRecord | undefined> {
    const record = this.records.get(handle);
    if (!record || record.binding !== binding) return Promise.resolve(undefined);
    this.records.delete(handle);
    if (record.expiresAt <= this.now()) return Promise.resolve(undefined);
    this.records.set(replacement, record);
    return Promise.resolve({ ...record });
  }

  delete(handle: string): Promise<void> {
    this.records.delete(handle);
    return Promise.resolve();
  }

  /** Drops every expired record; returns how many. */
  sweep(now = this.now()): number {
    let removed = 0;
    for (const [handle, record] of this.records) {
      if (record.expiresAt <= now) {
        this.records.delete(handle);
        removed++;
      }
    }
    return removed;
  }

  /** Stops the sweep timer and forgets every record. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.records.clear();
  }

  private startTimer(): void {
    if (this.timer || this.sweepIntervalMs <= 0) return;
    this.timer = setInterval(() => this.sweep(), this.sweepIntervalMs);
    this.timer.unref();
  }
}
