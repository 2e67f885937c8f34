import type { McpRedisClient } from './mcp-redis-client';
import { clip } from '../kit/clip';
import { DeadlineLane } from '../kit/deadline-lane';
import { RedisCommandError, type RedisCommandFailure } from './redis-command.error';

/** Statuses in which ioredis sends a command now, or connects to send it (`wait`: lazy, never connected). */
const SENDING_STATUSES = new Set(['ready', 'wait']);

/**
 * Why a Redis command failed, without anything Redis said beyond its error code (a reply may quote
 * keys, values or script hashes). @internal
 */
export function failureOf(error: unknown): RedisCommandFailure {
  if (error instanceof RedisCommandError) return error.reason;
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'ReplyError' && typeof message === 'string') {
    // Redis error replies start with an upper-case code (OOM, READONLY, NOPERM…); the rest may quote data.
    const code = /^[A-Z][A-Z_-]{1,31}(?=\s|$)/.exec(message)?.[0];
    return `rejected ${code ?? 'ERR'}`;
  }
  // A programming error (a client without the method, a bad argument) is not Redis being away.
  if (error instanceof Error && PROGRAMMING_ERRORS.has(error.name)) return `failed ${error.name}`;
  if (typeof message === 'string' && /timed out/i.test(message)) return 'timeout';
  return 'unavailable';
}

const PROGRAMMING_ERRORS = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError']);

/** Command deadlines in lanes (a Node timer per command costs more than the command's own work). */
const lanes = new Map<number, DeadlineLane>();
/** A lane's duration is a multiple of this: a command may time out up to this much sooner. */
const LANE_STEP_MS = 10;
/** Durations with a lane (settings, and what is left of a caller's time: a few values). */
const MAX_LANES = 16;

/** Calls `fire` after about `timeoutMs` (never later), unless the returned cancel comes first. */
function deadline(timeoutMs: number, fire: () => void): () => void {
  const laneMs = timeoutMs - (timeoutMs % LANE_STEP_MS);
  let lane = lanes.get(laneMs);
  if (!lane && laneMs >= LANE_STEP_MS && lanes.size < MAX_LANES)
    lanes.set(laneMs, (lane = new DeadlineLane(laneMs)));
  if (lane) {
    const onLane = lane;
    const due = onLane.add(fire);
    return () => onLane.cancel(due);
  }
  const timer = setTimeout(fire, timeoutMs);
  return () => clearTimeout(timer);
}

/**
 * Runs one Redis command so that it fails fast and closed whatever the client is configured with:
 * refused at once unless the client is connected (an app's client may queue offline commands
 * without limit), and rejected after `timeoutMs` rounded down to 10 ms (an app's client may have
 * no command timeout). Every failure is a {@link RedisCommandError}. A command that timed out may
 * still reach Redis later (`maybeApplied`): the module's writes carry a deadline their script
 * checks (`RedisClock`), so one that arrives after its caller gave up changes nothing.
 * @internal
 */
export function boundedRedisCommand<T>(
  client: Pick<McpRedisClient, 'status'>,
  timeoutMs: number,
  command: () => Promise<T>,
): Promise<T> {
  if (!SENDING_STATUSES.has(client.status))
    return Promise.reject(new RedisCommandError('unavailable'));
  return new Promise<T>((resolve, reject) => {
    const cancelTimeout = deadline(timeoutMs, () => reject(new RedisCommandError('timeout', true)));
    let sent: Promise<T>;
    try {
      sent = command();
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      (reply) => {
        cancelTimeout();
        resolve(reply);
      },
      (error: unknown) => {
        cancelTimeout();
        const reason = failureOf(error);
        // An error reply refused the command and one that could not be made was never sent; a lost
        // connection may have come after Redis applied it.
        reject(new RedisCommandError(reason, reason === 'unavailable' || reason === 'timeout'));
      },
    );
  });
}

/**
 * What to log of a failure that may have come from Redis — through the module's own commands or
 * a library's (BullMQ): the {@link RedisCommandFailure} for what Redis or the connection said,
 * else the error's name. Never a message, which may quote keys, values or script hashes.
 * @internal
 */
export function loggableFailure(error: unknown): string {
  if (error instanceof RedisCommandError) return error.reason;
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'ReplyError' || name === 'MaxRetriesPerRequestError') return failureOf(error);
  // A cluster that cannot find a node, or sentinels that cannot name a master, is away too.
  if (name === 'ClusterAllFailedError') return 'unavailable';
  if (
    typeof message === 'string' &&
    /connection|closed|writeable|offline|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|timed out|slots cache|startup nodes|sentinels/i.test(
      message,
    )
  )
    return failureOf(error);
  return typeof name === 'string' ? clip(name, 64) : 'unknown';
}
