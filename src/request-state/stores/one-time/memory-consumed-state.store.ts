import { retryAfterMs, shareRefusal, type ShareLimits } from '../../../kit/fair-share';
import { ConsumedStateStoreError } from './consumed-state-store.error';
import type { ConsumedStateStore } from './consumed-state-store.interface';
import { PeriodicSweep } from '../../../kit/periodic-sweep';

/** Options of {@link MemoryConsumedStateStore}. @publicApi */
export interface MemoryConsumedStateStoreOptions {
  /** Consumed states held at once; a presentation that would exceed it is refused. Default 1,000,000. */
  maxEntries?: number;
  /** Consumed states one owner (caller) holds at once. Default: `maxEntries`. */
  maxEntriesPerOwner?: number;
  /** How often every expired entry is dropped, in ms (an unref'd timer); 0 disables. Default 60,000. */
  sweepIntervalMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Oldest entries looked at on each insert: keeps a steady flow trimmed without a full scan. */
const FRONT_CHECKS = 2;
/** Longest id accepted; the module's ids are 43 characters (base64url SHA-256). */
const MAX_ID_LENGTH = 512;

/** How many states one owner holds now; shared by its entries, so an entry costs one reference. */
interface OwnerUsage {
  readonly owner: string;
  count: number;
}

interface Entry {
  readonly expiresAt: number;
  readonly usage: OwnerUsage;
}

/**
 * The default {@link ConsumedStateStore}: a map from state id to expiry in this process's memory,
 * so single-use state is one-time per process (a fleet needs a shared store). Expired entries are
 * dropped as new ones arrive and by a periodic sweep. Entries have a fixed size (ids are at most
 * 512 characters), so the count bounds the heap. A presentation the store cannot record is
 * refused with {@link ConsumedStateStoreError} instead of accepted: `full` when `maxEntries`
 * unexpired states are held, `share` when its owner holds its share (its own limit, or less while
 * the store is nearly full, so the heaviest owners are refused first).
 *
 * @publicApi
 */
export class MemoryConsumedStateStore implements ConsumedStateStore {
  private readonly entries = new Map<string, Entry>();
  private readonly owners = new Map<string, OwnerUsage>();
  private readonly limits: ShareLimits;
  private readonly now: () => number;
  private readonly sweeps: PeriodicSweep;
  /** No entry expires before this, so a full store is not rescanned on every refused insert. */
  private nextExpiryAt = 0;

  constructor(options: MemoryConsumedStateStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? 1_000_000;
    const perOwner = options.maxEntriesPerOwner ?? maxEntries;
    this.sweeps = new PeriodicSweep(options.sweepIntervalMs ?? 60_000, () => this.sweep());
    this.now = options.now ?? Date.now;
    if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0)
      throw new RangeError('maxEntries must be a positive integer');
    if (!Number.isSafeInteger(perOwner) || perOwner <= 0)
      throw new RangeError('maxEntriesPerOwner must be a positive integer');
    this.limits = { capacity: maxEntries, perPartition: Math.min(perOwner, maxEntries) };
  }

  /** Consumed states currently held (expired ones may remain until swept). */
  get size(): number {
    return this.entries.size;
  }

  consume(id: string, expiresAt: number, owner = ''): Promise<boolean> {
    try {
      return Promise.resolve(this.consumeNow(id, expiresAt, owner));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Drops every expired entry; returns how many. */
  sweep(now = this.now()): number {
    let removed = 0;
    let earliest = Number.POSITIVE_INFINITY;
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.forget(id, entry);
        removed++;
      } else if (entry.expiresAt < earliest) {
        earliest = entry.expiresAt;
      }
    }
    this.nextExpiryAt = earliest;
    return removed;
  }

  /** Stops the sweep timer and forgets every entry. */
  close(): void {
    this.sweeps.stop();
    this.entries.clear();
    this.owners.clear();
  }

  // Synchronous from lookup to insert: two presentations of one id can never both win.
  private consumeNow(id: string, expiresAt: number, owner: string): boolean {
    if (typeof id !== 'string' || id === '' || id.length > MAX_ID_LENGTH)
      throw new ConsumedStateStoreError('invalid_id');
    const now = this.now();
    if (!(expiresAt > now)) return false;
    const recorded = this.entries.get(id);
    if (recorded !== undefined && recorded.expiresAt > now) return false;
    if (recorded !== undefined) this.forget(id, recorded);
    this.evictFront(now);
    let refusal = this.refusal(owner);
    if (refusal && now >= this.nextExpiryAt) {
      this.sweep(now);
      refusal = this.refusal(owner);
    }
    if (refusal)
      throw new ConsumedStateStoreError(
        refusal === 'store' ? 'full' : 'share',
        retryAfterMs(this.nextExpiryAt, now),
      );
    let usage = this.owners.get(owner);
    if (!usage) this.owners.set(owner, (usage = { owner, count: 0 }));
    usage.count++;
    this.entries.set(id, { expiresAt, usage });
    this.nextExpiryAt = Math.min(this.nextExpiryAt, expiresAt);
    this.sweeps.start();
    return true;
  }

  private refusal(owner: string) {
    return shareRefusal(this.limits, this.owners.get(owner)?.count ?? 0, this.entries.size, 1);
  }

  private forget(id: string, entry: Entry): void {
    this.entries.delete(id);
    if (--entry.usage.count <= 0) this.owners.delete(entry.usage.owner);
  }

  private evictFront(now: number): void {
    let checked = 0;
    for (const [id, entry] of this.entries) {
      if (checked++ >= FRONT_CHECKS) break;
      if (entry.expiresAt <= now) this.forget(id, entry);
    }
  }
}
