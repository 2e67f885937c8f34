import type { Logger } from '@nestjs/common';
import { linkedBatch } from './audit-batch';
import { droppedDraft } from './audit-drafts';
import type { AuditDraft } from './audit-record';
import type { AuditSigner } from './audit-signer';
import { AuditChainLostError, type AuditSink } from './sinks/audit-sink';
import { AuditUnavailableError } from './audit-unavailable.error';
import { AuditDrops } from './audit-drops';
import { awaitedRecord, type AuditDeferred, type AuditPending } from './audit-pending';

/** Records written in one batch at most. */
const BATCH = 256;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5_000;
/**
 * How long a best-effort record may wait for others to share its write: one write (a system call,
 * a promise) a few milliseconds instead of one each turn of the event loop. A strict record, which
 * a call waits for, is written at the end of its turn.
 */
const GATHER_MS = 10;

/** What the writer is set to. @internal */
export interface AuditWriterSettings {
  readonly instance: string;
  readonly sinkName: string;
  readonly checkpointEvery: number;
  readonly checkpointIntervalMs: number;
  readonly queueBound: number;
  readonly strictTimeoutMs: number;
  /** Counts records dropped (the `nestjs_mcp.audit.records.dropped` metric). */
  readonly countDropped: (count: number, reason: string) => void;
}

/**
 * One instance's chain: records queue (bounded), are linked and hashed in order, and are written
 * to the sink a batch at a time, a signed checkpoint after every `checkpointEvery` records or
 * `checkpointIntervalMs`. The head moves only once a batch is written, so a batch the sink refused
 * is linked again, unchanged, when it is retried. A strict record's writer waits for it; while the
 * sink is down it is refused at once, with how long to wait.
 * @internal
 */
export class AuditWriter {
  private readonly queue: AuditPending[] = [];
  /** Records to draft with the next batch, in order after the queue's (see {@link addLater}). */
  private deferred: AuditDeferred[] = [];
  /** This chain's instance id: the settings', and a new one after the sink lost the chain. */
  private instance: string;
  private restarts = 0;
  private head: string | null = null;
  private seq = 0;
  private sinceCheckpoint = 0;
  private lastCheckpointAt = Date.now();
  private draining = false;
  private downUntil = 0;
  private backoffMs = 0;
  private readonly drops: AuditDrops;
  private closed = false;
  private readonly timer: NodeJS.Timeout;
  private retry: NodeJS.Timeout | undefined;
  private idle: (() => void)[] = [];

  constructor(
    private readonly sink: AuditSink,
    private readonly signer: AuditSigner,
    private readonly settings: AuditWriterSettings,
    private readonly logger: Logger,
  ) {
    this.instance = settings.instance;
    this.drops = new AuditDrops(settings.countDropped, logger, settings.queueBound);
    this.timer = setInterval(() => this.tick(), Math.min(settings.checkpointIntervalMs, 1_000));
    this.timer.unref();
  }

  /** Queues a record; one that does not fit is dropped and counted (best effort). */
  add(draft: AuditDraft): void {
    if (this.closed) return;
    this.draftDeferred();
    this.enqueue(draft);
    this.drainSoon(false);
  }

  /**
   * Queues records to be drafted with the next batch (best effort, like {@link add}). While the
   * sink is down, or a batch's worth already waits, they are drafted at once: what waits long holds
   * records, not the calls' arguments and results.
   */
  addLater(deferred: AuditDeferred): void {
    if (this.closed) return;
    if (this.deferred.length < BATCH && Date.now() >= this.downUntil) {
      this.deferred.push(deferred);
      return this.drainSoon(false);
    }
    this.draftDeferred();
    this.enqueueDrafts(deferred);
    this.drainSoon(false);
  }

  private enqueue(draft: AuditDraft): void {
    if (this.queue.length >= this.settings.queueBound) return this.drops.drop(1, 'queue_full');
    this.queue.push({ draft });
  }

  /** Drafts what waits to be, in order, onto the queue. */
  private draftDeferred(): void {
    if (this.deferred.length === 0) return;
    const deferred = this.deferred;
    this.deferred = [];
    for (const each of deferred) this.enqueueDrafts(each);
  }

  private enqueueDrafts(deferred: AuditDeferred): void {
    let drafts: readonly AuditDraft[];
    try {
      drafts = deferred.drafts();
    } catch {
      return this.drops.drop(1, 'unrecordable');
    }
    for (const draft of drafts) this.enqueue(draft);
  }

  private gathering: NodeJS.Timeout | undefined;
  private drainScheduled = false;

  /**
   * Drains once the calls of this turn of the event loop have queued theirs (`urgent`: a call waits
   * for its record), or else once {@link GATHER_MS} have gathered more: fewer, larger batches.
   */
  private drainSoon(urgent: boolean): void {
    if (this.drainScheduled || this.draining) return;
    if (!urgent) {
      this.gathering ??= setTimeout(() => {
        this.gathering = undefined;
        this.drain();
      }, GATHER_MS);
      return;
    }
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      this.drain();
    });
  }

  /** Queues a record and waits until it is written; rejects with {@link AuditUnavailableError}. */
  addAndWait(draft: AuditDraft): Promise<void> {
    const now = Date.now();
    if (this.closed) return Promise.reject(new AuditUnavailableError(1_000));
    if (now < this.downUntil)
      return Promise.reject(new AuditUnavailableError(this.downUntil - now));
    this.draftDeferred();
    if (this.queue.length >= this.settings.queueBound)
      return Promise.reject(new AuditUnavailableError(FIRST_BACKOFF_MS));
    const { pending, written } = awaitedRecord(
      draft,
      this.settings.strictTimeoutMs,
      FIRST_BACKOFF_MS,
      (withdrawn) => {
        const at = this.queue.indexOf(withdrawn);
        if (at >= 0) this.queue.splice(at, 1);
      },
    );
    this.queue.push(pending);
    this.drainSoon(true);
    return written;
  }

  /** Writes what is queued and a final checkpoint; nothing is taken after. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    // What is still gathering is written now, not when its timer fires.
    if (this.gathering) this.drain();
    await this.whenIdle();
    this.closed = true;
    if (Date.now() >= this.downUntil && this.seq > 0) {
      try {
        await this.writeBatch([], true);
      } catch {
        this.logger.warn('The audit trail could not write its final checkpoint');
      }
    }
    if (this.retry) clearTimeout(this.retry);
    this.draftDeferred();
    const left = this.queue.splice(0);
    if (left.length > 0) this.drops.drop(left.length, 'shutdown');
  }

  private whenIdle(): Promise<void> {
    const empty = this.queue.length === 0 && this.deferred.length === 0;
    if (!this.draining && (empty || Date.now() < this.downUntil)) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private tick(): void {
    const due = Date.now() - this.lastCheckpointAt >= this.settings.checkpointIntervalMs;
    if (due && this.sinceCheckpoint > 0) this.drain(true);
  }

  private drain(checkpointNow = false): void {
    if (this.draining || this.closed) return;
    if (this.gathering) {
      clearTimeout(this.gathering);
      this.gathering = undefined;
    }
    if (Date.now() < this.downUntil) return this.retryLater();
    if (this.queue.length === 0 && this.deferred.length === 0 && !checkpointNow) return;
    this.draining = true;
    void this.drainLoop(checkpointNow).finally(() => {
      this.draining = false;
      // Records queued while the last batch was written: gathered again, unless someone waits.
      const waiting = this.queue.length > 0 || this.deferred.length > 0;
      if (waiting && Date.now() >= this.downUntil) {
        if (this.idle.length > 0) return this.drain();
        return this.drainSoon(this.queue.some((pending) => pending.done !== undefined));
      }
      for (const resolve of this.idle.splice(0)) resolve();
    });
  }

  private async drainLoop(checkpointNow: boolean): Promise<void> {
    let forceCheckpoint = checkpointNow;
    // After the first batch, only a backlog of full batches goes on at once (see `drain`).
    let least = 1;
    for (;;) {
      this.draftDeferred();
      if ((this.queue.length < least && !forceCheckpoint) || this.closed) return;
      least = BATCH;
      if (Date.now() < this.downUntil) return this.retryLater();
      const batch = this.queue.splice(0, BATCH);
      // What was dropped is said in the chain itself, so that the trail shows its own gap.
      const reported = this.drops.take();
      for (const [reason, count] of reported) batch.unshift({ draft: droppedDraft(count, reason) });
      const due =
        forceCheckpoint ||
        this.sinceCheckpoint + batch.length >= this.settings.checkpointEvery ||
        Date.now() - this.lastCheckpointAt >= this.settings.checkpointIntervalMs;
      try {
        await this.writeBatch(
          batch.map((pending) => pending.draft),
          due,
        );
      } catch (error) {
        if (error instanceof AuditChainLostError) this.restartChain();
        this.drops.giveBack(reported);
        this.failed(batch, error);
        return this.retryLater();
      }
      forceCheckpoint = false;
      for (const pending of batch) pending.done?.resolve();
    }
  }

  /** Links, hashes and writes `drafts` (and a checkpoint after them when `checkpoint`). */
  private async writeBatch(drafts: readonly AuditDraft[], checkpoint: boolean): Promise<void> {
    const end = { instance: this.instance, head: this.head, seq: this.seq };
    const signing = { signer: this.signer, sink: this.sink, final: this.closed };
    const batch = await linkedBatch(drafts, end, checkpoint ? signing : undefined, this.logger);
    if (batch.records.length === 0) return;
    await this.sink.write(batch.records, {
      instance: this.instance,
      previousHash: this.head,
      lastSeq: String(batch.seq),
    });
    this.written(batch.head, batch.seq, drafts.length, batch.signed);
  }

  private written(head: string | null, seq: number, count: number, signed: boolean): void {
    if (this.backoffMs > 0) this.logger.log('The audit sink is writing again');
    this.head = head;
    this.seq = seq;
    this.backoffMs = 0;
    this.downUntil = 0;
    this.sinceCheckpoint = signed ? 0 : this.sinceCheckpoint + count;
    if (signed) this.lastCheckpointAt = Date.now();
  }

  /** A batch the sink refused: strict records are refused, the rest wait for the retry. */
  private failed(batch: AuditPending[], error: unknown): void {
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2 || FIRST_BACKOFF_MS);
    this.downUntil = Date.now() + this.backoffMs;
    if (this.backoffMs === FIRST_BACKOFF_MS)
      this.logger.error(
        `The audit sink (${this.settings.sinkName}) failed: ${(error as Error)?.message ?? error}; records wait (best effort) or calls are refused (strict) until it writes again`,
      );
    const kept = batch.filter(
      (pending) => !pending.done && pending.draft.event_type !== 'audit.records_dropped',
    );
    for (const pending of batch) pending.done?.reject(new AuditUnavailableError(this.backoffMs));
    const room = Math.max(0, this.settings.queueBound - this.queue.length);
    this.queue.unshift(...kept.slice(0, room));
    if (kept.length > room) this.drops.drop(kept.length - room, 'queue_full');
    // What waits for the sink to come back waits as records.
    this.draftDeferred();
  }

  /**
   * The sink lost this chain's head (a Redis that restarted without persistence): the chain cannot
   * go on, so a new one starts, under a new instance id; the verifier reports the records lost.
   */
  private restartChain(): void {
    this.restarts++;
    this.instance = `${this.settings.instance}.${this.restarts}`;
    this.head = null;
    this.seq = 0;
    this.sinceCheckpoint = 0;
    this.logger.error(
      `The audit sink lost this instance's chain (its records are gone); a new chain starts as ${this.instance}`,
    );
  }

  private retryLater(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(
      () => {
        this.retry = undefined;
        this.drain();
      },
      Math.max(0, this.downUntil - Date.now()),
    );
    this.retry.unref();
  }
}
