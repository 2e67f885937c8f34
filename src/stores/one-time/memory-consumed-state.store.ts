import { ConsumedStateStoreError } from './consumed-state-store.error';
import type { ConsumedStateStore } from './consumed-state-store.interface';

/** Options of {@link MemoryConsumedStateStore}. @publicApi */
export interface MemoryConsumedStateStoreOptions {
  /** Consumed states held at once; a presentation that would exceed it is refused. Default 1,000,000. */
  maxEntries?: number;
  /** How often every expired entry is dropped, in ms (an unref'd timer); 0 disables. Default 60,000. */
  sweepIntervalMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Oldest entries looked at on each insert: keeps a steady flow trimmed without a full scan. */
const FRONT_CHECKS = 2;

/**
 * The default {@link ConsumedStateStore}: a map from state id to expiry in this process's memory,
 * so single-use state is one-time per process (a fleet needs a shared store). Expired entries are
 * dropped as new ones arrive and by a periodic sweep; when `maxEntries` unexpired states are held,
 * `consume` rejects with {@link ConsumedStateStoreError} (`full`) instead of accepting a state it
 * could not record.
 *
 * @publicApi
 */
export class MemoryConsumedStateStore implements ConsumedStateStore {
  private readonly entries = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  /** No entry expires before this, so a full store is not rescanned on every refused insert. */
  private nextExpiryAt = 0;

  constructor(options: MemoryConsumedStateStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 1_000_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
    if (!Number.isSafeInteger(this.maxEntries) || this.maxEntries <= 0)
      throw new RangeError('maxEntries must be a positive integer');
  }

  /** Consumed states currently held (expired ones may remain until swept). */
  get size(): number {
    return this.entries.size;
  }

  consume(id: string, expiresAt: number): Promise<boolean> {
    try {
      return Promise.resolve(this.consumeNow(id, expiresAt));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Drops every expired entry; returns how many. */
  sweep(now = this.now()): number {
    let removed = 0;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, expiresAt] of this.entries) {
      if (expiresAt <= now) {
        this.entries.delete(id);
        removed++;
      } else if (expiresAt < earliest) {
        earliest = expiresAt;
      }
    }
    this.nextExpiryAt = earliest;
    return removed;
  }

  /** Stops the sweep timer and forgets every entry. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.entries.clear();
  }

  // Synchronous from lookup to insert: two presentations of one id can never both win.
  private consumeNow(id: string, expiresAt: number): boolean {
    const now = this.now();
    if (!(expiresAt > now)) return false;
    const recorded = this.entries.get(id);
    if (recorded !== undefined && recorded > now) return false;
    this.evictFront(now);
    if (this.entries.size >= this.maxEntries && now >= this.nextExpiryAt) this.sweep(now);
    if (this.entries.size >= this.maxEntries) throw new ConsumedStateStoreError('full');
    this.entries.set(id, expiresAt);
    this.nextExpiryAt = Math.min(this.nextExpiryAt, expiresAt);
    this.startTimer();
    return true;
  }

  private evictFront(now: number): void {
    let checked = 0;
    for (const [id, expiresAt] of this.entries) {
      if (checked++ >= FRONT_CHECKS) break;
      if (expiresAt <= now) this.entries.delete(id);
    }
  }

  private startTimer(): void {
    if (this.timer || this.sweepIntervalMs <= 0) return;
    this.timer = setInterval(() => this.sweep(), this.sweepIntervalMs);
    this.timer.unref();
  }
}
