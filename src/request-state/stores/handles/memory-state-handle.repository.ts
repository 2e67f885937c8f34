import { retryAfterMs, shareRefusal, type ShareLimits } from '../../../kit/fair-share';
import { handleShares } from './handle-shares';
import { StateHandleRepositoryError } from './state-handle-repository.error';
import type { StateHandleRecord, StateHandleRepository } from './state-handle-repository.interface';
import { PeriodicSweep } from '../../../kit/periodic-sweep';

/** Options of {@link MemoryStateHandleRepository}. @publicApi */
export interface MemoryStateHandleRepositoryOptions {
  /** Records held at once; storing one more is refused. Default 10,000. */
  maxEntries?: number;
  /** Records one owner (caller) holds at once. Default: `maxEntries`, i.e. no share of its own. */
  maxEntriesPerOwner?: number;
  /**
   * Heap the records may take, estimated as 256 bytes per record plus its data (twice its length
   * when it holds characters beyond Latin-1, as V8 keeps such strings). Default 67,108,864 (64 MiB).
   */
  maxBytes?: number;
  /** How often every expired record is dropped, in ms (an unref'd timer); 0 disables. Default 60,000. */
  sweepIntervalMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Heap a record costs besides its data: the entry, the record object, handle, binding, owner. */
const RECORD_OVERHEAD_BYTES = 256;
/** @internal */
export const DEFAULT_MAX_HANDLE_BYTES = 67_108_864;

interface Held {
  readonly record: StateHandleRecord;
  readonly owner: string;
  readonly weight: number;
}

interface OwnerUsage {
  count: number;
  bytes: number;
}

function weightOf(record: StateHandleRecord): number {
  // eslint-disable-next-line no-control-regex -- every code unit past Latin-1 is the point
  const wide = /[^\u0000-\u00ff]/.test(record.data);
  return RECORD_OVERHEAD_BYTES + record.data.length * (wide ? 2 : 1);
}

/**
 * The default {@link StateHandleRepository}: records in this process's memory, so a handle can only
 * be redeemed on the instance that issued it (a fleet needs a shared repository such as
 * {@link RedisStateHandleRepository}). Every operation runs synchronously from lookup to write, so
 * it is atomic. Expired records are dropped when touched and by a periodic sweep. A new record is
 * refused with {@link StateHandleRepositoryError} when the repository is full (`full`) or when its
 * owner holds its share (`share`: its own limit, or less while the repository is nearly full, so
 * the heaviest owners are refused first and a quiet one still finds room), by count and by bytes.
 *
 * @publicApi
 */
export class MemoryStateHandleRepository implements StateHandleRepository {
  private readonly records = new Map<string, Held>();
  private readonly owners = new Map<string, OwnerUsage>();
  private totalBytes = 0;
  private readonly count: ShareLimits;
  private readonly bytes: ShareLimits;
  private readonly now: () => number;
  private readonly sweeps: PeriodicSweep;

  constructor(options: MemoryStateHandleRepositoryOptions = {}) {
    const maxEntries = options.maxEntries ?? 10_000;
    ({ count: this.count, bytes: this.bytes } = handleShares({
      maxEntries,
      maxEntriesPerOwner: options.maxEntriesPerOwner ?? maxEntries,
      maxBytes: options.maxBytes ?? DEFAULT_MAX_HANDLE_BYTES,
    }));
    this.sweeps = new PeriodicSweep(options.sweepIntervalMs ?? 60_000, () => this.sweep());
    this.now = options.now ?? Date.now;
  }

  /** Records currently held (expired ones may remain until swept). */
  get size(): number {
    return this.records.size;
  }

  put(handle: string, record: StateHandleRecord): Promise<void> {
    const now = this.now();
    const current = this.records.get(handle);
    if (!(record.expiresAt > now)) {
      if (current) this.forget(handle, current);
      return Promise.resolve();
    }
    const held: Held = {
      record: { ...record },
      owner: record.owner ?? '',
      weight: weightOf(record),
    };
    const refusal = this.refusal(held, current, now);
    if (refusal) return Promise.reject(refusal);
    if (current) this.forget(handle, current);
    this.keep(handle, held);
    this.sweeps.start();
    return Promise.resolve();
  }

  redeem(
    handle: string,
    binding: string,
    replacement: string,
  ): Promise<StateHandleRecord | undefined> {
    const held = this.records.get(handle);
    if (!held || held.record.binding !== binding) return Promise.resolve(undefined);
    this.forget(handle, held);
    if (held.record.expiresAt <= this.now()) return Promise.resolve(undefined);
    const previous = this.records.get(replacement);
    if (previous) this.forget(replacement, previous);
    this.keep(replacement, held);
    return Promise.resolve({ ...held.record });
  }

  delete(handle: string): Promise<void> {
    const held = this.records.get(handle);
    if (held) this.forget(handle, held);
    return Promise.resolve();
  }

  /** Drops every expired record; returns how many. */
  sweep(now = this.now()): number {
    let removed = 0;
    for (const [handle, held] of this.records) {
      if (held.record.expiresAt <= now) {
        this.forget(handle, held);
        removed++;
      }
    }
    return removed;
  }

  /** Stops the sweep timer and forgets every record. */
  close(): void {
    this.sweeps.stop();
    this.records.clear();
    this.owners.clear();
    this.totalBytes = 0;
  }

  /** Why `held` may not be stored (replacing `current`, if any); swept once before refusing. */
  private refusal(
    held: Held,
    current: Held | undefined,
    now: number,
  ): StateHandleRepositoryError | undefined {
    const attempt = () => {
      const usage = this.owners.get(held.owner);
      const growth = held.weight - (current?.weight ?? 0);
      if (current) {
        // The next round of a flow already held: only the hard limits, never the share.
        if (growth <= 0) return undefined;
        const refused = shareRefusal(this.bytes, usage?.bytes ?? 0, this.totalBytes, growth);
        return refused === 'share' ? undefined : refused;
      }
      return (
        shareRefusal(this.count, usage?.count ?? 0, this.records.size, 1) ??
        shareRefusal(this.bytes, usage?.bytes ?? 0, this.totalBytes, held.weight)
      );
    };
    if (!attempt()) return undefined;
    this.sweep(now);
    const refused = attempt();
    if (!refused) return undefined;
    const reason = refused === 'store' ? 'full' : 'share';
    return new StateHandleRepositoryError(reason, retryAfterMs(this.firstExpiry(), now));
  }

  private firstExpiry(): number | undefined {
    let first: number | undefined;
    for (const { record } of this.records.values())
      if (first === undefined || record.expiresAt < first) first = record.expiresAt;
    return first;
  }

  private keep(handle: string, held: Held): void {
    this.records.set(handle, held);
    const usage = this.owners.get(held.owner) ?? { count: 0, bytes: 0 };
    usage.count++;
    usage.bytes += held.weight;
    this.owners.set(held.owner, usage);
    this.totalBytes += held.weight;
  }

  private forget(handle: string, held: Held): void {
    this.records.delete(handle);
    this.totalBytes -= held.weight;
    const usage = this.owners.get(held.owner);
    if (!usage) return;
    usage.count--;
    usage.bytes -= held.weight;
    if (usage.count <= 0) this.owners.delete(held.owner);
  }
}
