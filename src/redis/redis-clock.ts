import { RedisCommandError } from './redis-command.error';

/** How often the offset between this process's clock and Redis's is measured again. */
const RESAMPLE_MS = 30_000;
/** A round trip longer than this is measured again at once (the first one may include connecting). */
const FAST_ROUND_TRIP_MS = 20;

/**
 * Lua helpers of the deadline every write of the module carries: `redis_now_ms()` is Redis's
 * clock in ms, `past_deadline(ms)` whether it is past a deadline sent by {@link RedisClock}.
 * A script that finds itself past its deadline changes nothing and answers `late`: the caller
 * has been told the write failed, so it must never be applied afterwards (ioredis resends
 * unfulfilled commands on reconnect, and a paused Redis runs what waited in its socket).
 * @internal
 */
export const DEADLINE_LUA = `
local function redis_now_ms()
  local clock = redis.call('TIME')
  return tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
end
local function past_deadline(deadline)
  return redis_now_ms() > tonumber(deadline)
end`;

/** What a script answers when it ran past its deadline and changed nothing. @internal */
export const LATE_REPLY = 'late';

/**
 * Deadlines on Redis's clock, so that Redis's clock need not agree with this process's: the
 * offset between the two is measured and added — once before the first deadline, then every 30 s
 * in the background, and again at once after a script found itself late (a failover to a server
 * whose clock differs). While Redis cannot be asked, the offset last measured (or zero) is used.
 * @internal
 */
export class RedisClock {
  private offsetMs = 0;
  private sampledAt = Number.NEGATIVE_INFINITY;
  private sampling: Promise<void> | undefined;

  constructor(
    /** Reads Redis's `TIME` (`[seconds, microseconds]`). */
    private readonly readTime: () => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The moment `budgetMs` from now, in ms on Redis's clock, for the script's `past_deadline`. */
  async deadline(budgetMs: number): Promise<number> {
    const sampling = this.refresh();
    // Only the first deadline waits for a measurement; later ones use the last one.
    if (this.sampledAt === Number.NEGATIVE_INFINITY && sampling) await sampling;
    return Math.ceil(this.now() + this.offsetMs + budgetMs);
  }

  /** A script found itself past its deadline: measure again before the next deadline. */
  late(): void {
    if (this.sampledAt !== Number.NEGATIVE_INFINITY) this.sampledAt = this.now() - RESAMPLE_MS;
  }

  /**
   * A write's reply, unless its script ran past its deadline and changed nothing: then a
   * `RedisCommandError('late')`, an outage as a timeout is.
   */
  inTime<T>(reply: T): T {
    if (reply !== LATE_REPLY) return reply;
    this.late();
    throw new RedisCommandError('late');
  }

  /**
   * Runs a write `script` with EVAL on `keys`, `args` and, last, the deadline `budgetMs` from now
   * (see {@link DEADLINE_LUA}); its reply, once known to be in time (see {@link inTime}).
   */
  async evalInTime(
    client: { call(command: string, ...args: (string | number)[]): Promise<unknown> },
    script: string,
    keys: string[],
    args: (string | number)[],
    budgetMs: number,
  ): Promise<unknown> {
    const deadline = await this.deadline(budgetMs);
    return this.inTime(await client.call('EVAL', script, keys.length, ...keys, ...args, deadline));
  }

  private refresh(): Promise<void> | undefined {
    if (this.sampling || this.now() - this.sampledAt < RESAMPLE_MS) return this.sampling;
    this.sampling = this.measure().finally(() => (this.sampling = undefined));
    return this.sampling;
  }

  /**
   * Takes the offset from a `TIME`: Redis read it at some moment between sending and receiving, so
   * `redisMs - received` is the lowest the offset can be; taken so, a deadline is never later on
   * Redis's clock than intended (only earlier, by at most the round trip). A slow first round trip
   * (a connection being made) is measured again at once, and the faster kept.
   */
  private async measure(): Promise<void> {
    let best: { offset: number; roundTrip: number } | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const sample = await this.sample();
      if (sample && (!best || sample.roundTrip < best.roundTrip)) best = sample;
      if (!sample || sample.roundTrip <= FAST_ROUND_TRIP_MS) break;
    }
    if (!best) return;
    this.offsetMs = best.offset;
    this.sampledAt = this.now();
  }

  private async sample(): Promise<{ offset: number; roundTrip: number } | undefined> {
    const sent = this.now();
    let reply: unknown;
    try {
      reply = await this.readTime();
    } catch {
      return undefined;
    }
    const received = this.now();
    const redisMs = millisecondsOf(reply);
    return redisMs === undefined
      ? undefined
      : { offset: redisMs - received, roundTrip: received - sent };
  }
}

function millisecondsOf(reply: unknown): number | undefined {
  if (!Array.isArray(reply) || reply.length < 2) return undefined;
  const [seconds, micros] = reply.map(Number) as [number, number];
  return Number.isFinite(seconds) && Number.isFinite(micros)
    ? seconds * 1000 + Math.floor(micros / 1000)
    : undefined;
}
