import type { Logger } from '@nestjs/common';
import { RedisCommandError } from '../../redis/redis-command.error';
import {
  isAbsent,
  isUnverifiable,
  newestOf,
  type DesiredRead,
  type FleetDesiredRecord,
} from './fleet-desired-record';
import { HEARTBEAT_MS, type FleetInstanceReports } from './fleet-instance-reports';
import type { FleetReconciler } from './fleet-reconciler';
import type { DesiredKeyring } from './fleet-records';

const RETRY_SOON_MS = 100;

/**
 * Keeps this instance on the fleet's keyring: reads the record and its high-water copy, applies
 * the newest authentic keyring it knows (never one older than it applied: a replayed record is
 * refused), writes that one back over an older record, and reports what this instance holds. An
 * instance with no memory of the fleet yet takes its floor from what the live instances report.
 * Passes, and the changes this instance makes, run one at a time.
 * @internal
 */
export class FleetFollower {
  private newest: DesiredKeyring | undefined;
  /** The older record last warned about, so each is logged once. */
  private warnedStale: number | undefined;
  private running: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private redisFailing = false;
  private closed = false;

  constructor(
    private readonly record: FleetDesiredRecord,
    private readonly reports: FleetInstanceReports,
    private readonly reconciler: FleetReconciler,
    private readonly logger: Logger,
    /** Tells the other instances the record changed. */
    private readonly announce: () => Promise<void>,
  ) {}

  /** The newest authentic keyring of the fleet applied here. */
  get latest(): DesiredKeyring | undefined {
    return this.newest;
  }

  close(): void {
    this.closed = true;
  }

  /** Re-reads the fleet's keyring, applies it, reports; one pass at a time, coalesced. */
  sync(): Promise<void> {
    if (this.queued) return this.queued;
    const next = this.running.then(() => {
      this.queued = undefined;
      return this.syncNow();
    });
    this.queued = next;
    this.running = next.catch(() => undefined);
    return next;
  }

  /** Runs `work` when no pass or other change runs. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.running.then(work);
    this.running = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Applies `desired` here (unless an newer one was) and reports. */
  async reconcile(desired: DesiredKeyring): Promise<void> {
    if (this.newest && desired.seq < this.newest.seq) return;
    this.newest = desired;
    // A key in use by a seal in progress: removed on a later pass, moments from now.
    if (await this.reconciler.apply(desired))
      setTimeout(() => void this.sync(), RETRY_SOON_MS).unref();
    await this.reports.renew();
  }

  private async syncNow(): Promise<void> {
    if (this.closed) return;
    try {
      const read = await this.record.read();
      if (isUnverifiable(read))
        this.logger.warn(
          `The fleet's keyring record (${this.record.key}) failed its integrity check (written under a key this instance lacks, or edited); this instance keeps its own keyring`,
        );
      // Deleted by hand (both keys): each instance keeps its keyring until the next change.
      const newest = isAbsent(read) ? undefined : newestOf(read.record, read.copy, this.newest);
      const floor = newest && !this.newest ? await this.reports.highestSeq() : 0;
      if (newest && newest.seq >= floor) {
        await this.reconcile(newest);
        await this.writeBack(read, newest);
      } else {
        if (newest) this.warnOnce(newest.seq, `older than seq ${floor} a live instance applied`);
        await this.reports.renew();
      }
      this.redisUp();
    } catch (error) {
      this.redisDown(error);
    }
  }

  /**
   * Writes `newest` back over an older record (a replayed one, or a restore of an older backup),
   * or beside a record that has no high-water copy yet, so every instance reads it again.
   */
  private async writeBack(read: DesiredRead, newest: DesiredKeyring): Promise<void> {
    if (read.record?.seq === newest.seq && read.copy?.seq === newest.seq) return;
    if (read.record?.seq !== newest.seq)
      this.warnOnce(read.record?.seq, `older than seq ${newest.seq} this instance knows`);
    if (await this.record.write(read, newest)) await this.announce();
  }

  private warnOnce(seq: number | undefined, older: string): void {
    if (seq !== undefined && this.warnedStale === seq) return;
    this.warnedStale = seq;
    this.logger.warn(
      `The fleet's keyring record (${this.record.key}, seq ${seq ?? 'missing or edited'}) is ${older}: a record written back from before (replayed, or an older backup restored). It is not applied; a live instance writes the newer one back`,
    );
  }

  private redisUp(): void {
    if (!this.redisFailing) return;
    this.redisFailing = false;
    this.logger.log('Keyring reports reach the fleet again');
  }

  private redisDown(error: unknown): void {
    if (this.redisFailing || this.closed) return;
    this.redisFailing = true;
    const reason = error instanceof RedisCommandError ? error.reason : 'unknown';
    this.logger.warn(
      `The fleet's keyring cannot be read or reported (${reason}); this instance keeps its keys and tries again every ${HEARTBEAT_MS / 1000} s`,
    );
  }
}
