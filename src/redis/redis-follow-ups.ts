import type { Logger } from '@nestjs/common';

/** How often writes that did not land yet are tried again. */
const RETRY_MS = 250;
/** Writes waiting at once; past it a new one is not kept (the lease it would have ended runs out). */
const MAX_PENDING = 10_000;

interface FollowUp {
  readonly write: () => Promise<unknown>;
  readonly until: number;
  running: boolean;
}

/**
 * Idempotent writes that settle an earlier one whose outcome the caller could not wait for — a
 * claim the store must release because its caller was told it failed, or confirm because its
 * caller went on — tried at once and again every 250 ms while Redis is away, each until it lands
 * or its deadline passes (then what it would have settled resolves by its own lease). One timer,
 * unref'd, only while something waits.
 * @internal
 */
export class RedisFollowUps {
  private readonly pending = new Map<string, FollowUp>();
  private timer: NodeJS.Timeout | undefined;
  private overflowLogged = false;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Writes that have not landed yet. */
  get size(): number {
    return this.pending.size;
  }

  /** Runs `write` now and, until it succeeds, every 250 ms until `until` (ms since the epoch). */
  add(key: string, write: () => Promise<unknown>, until: number): void {
    if (!this.pending.has(key) && this.pending.size >= MAX_PENDING) {
      if (!this.overflowLogged)
        this.logger.warn(
          `More than ${MAX_PENDING} writes wait for Redis to settle earlier ones; later ones are left to their leases`,
        );
      this.overflowLogged = true;
      return;
    }
    const followUp: FollowUp = { write, until, running: false };
    this.pending.set(key, followUp);
    this.attempt(key, followUp);
  }

  private attempt(key: string, followUp: FollowUp): void {
    if (followUp.running) return;
    if (this.now() > followUp.until) {
      this.forget(key, followUp);
      return;
    }
    followUp.running = true;
    let writing: Promise<unknown>;
    try {
      writing = followUp.write();
    } catch (error) {
      writing = Promise.reject(error);
    }
    writing.then(
      () => this.forget(key, followUp),
      () => {
        followUp.running = false;
        this.schedule();
      },
    );
  }

  private forget(key: string, followUp: FollowUp): void {
    if (this.pending.get(key) === followUp) this.pending.delete(key);
    if (this.pending.size === 0) this.overflowLogged = false;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      for (const [key, followUp] of this.pending) this.attempt(key, followUp);
    }, RETRY_MS);
    this.timer.unref();
  }
}
