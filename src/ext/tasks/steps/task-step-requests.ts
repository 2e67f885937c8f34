import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TASK_STATUS_CHANNEL } from '../events/task-status-channel';
import { FleetBus, type CallHttp, type HttpExchange } from '../../../extension-api';

/** A request held for a task's next step, with the task version that step was scheduled at. */
interface HeldRequest {
  readonly http: CallHttp;
  readonly version: number;
  readonly heldAt: number;
}

/** Requests held at once; past it the oldest is let go (its step then runs detached). @internal */
export const MAX_HELD_STEP_REQUESTS = 10_000;
/**
 * How long a request is held for a step a shared runner may run on another instance: once that
 * instance has run it, nothing here would let the request go but this.
 * @internal
 */
export const SHARED_RUNNER_HOLD_MS = 60_000;

/**
 * The requests that created or resumed tasks, held until the task's next step starts on this
 * instance: that step runs on the request that asked for it, as its caller. A step that starts
 * without one (another instance holds it, or it was let go) runs detached.
 *
 * Nothing is held for the life of the process: a request is let go when its step starts here,
 * when the task is cancelled, when the task's status moves past the version the step was
 * scheduled at (the step ran, here or on another instance that said so on the fleet bus), after
 * {@link SHARED_RUNNER_HOLD_MS} when the runner may run steps elsewhere, and past
 * {@link MAX_HELD_STEP_REQUESTS}, oldest first. What is held is small: the request's body is cut
 * down to `{ jsonrpc, id, method, params: { name | taskId } }` once its call is answered, since
 * the step runs with the call the task kept.
 * @internal
 */
@Injectable()
export class TaskStepRequests implements OnModuleInit, OnModuleDestroy {
  private readonly pending = new Map<string, HeldRequest>();
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Set when steps may run on another instance (a shared runner): held requests then expire. */
  private holdMs: number | undefined;
  private now: () => number = Date.now;

  constructor(private readonly fleet: FleetBus) {}

  onModuleInit(): void {
    this.unsubscribe = this.fleet.subscribe(TASK_STATUS_CHANNEL, ({ taskId, version }) => {
      const held = this.pending.get(taskId);
      if (held && version > held.version) this.pending.delete(taskId);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  /** Steps may run on other instances: requests are held at most `holdMs`. */
  expireAfter(holdMs: number, now: () => number = Date.now): void {
    this.holdMs = holdMs;
    this.now = now;
  }

  /** Remembers the request the step scheduled at `version` of `taskId` runs on. */
  hold(taskId: string, exchange: HttpExchange, version: number): void {
    this.pending.delete(taskId);
    this.pending.set(taskId, { http: slim(exchange), version, heldAt: this.now() });
    this.evict();
    if (this.holdMs !== undefined && !this.timer) {
      this.timer = setInterval(() => this.evict(), Math.max(1_000, this.holdMs / 4));
      this.timer.unref();
    }
  }

  /** The request the next step of `taskId` runs on, if this instance holds it; it is let go. */
  take(taskId: string): CallHttp | undefined {
    const held = this.pending.get(taskId);
    this.pending.delete(taskId);
    return held?.http;
  }

  /** Lets go of the request held for `taskId`, if any (the task was cancelled). */
  release(taskId: string): void {
    this.pending.delete(taskId);
  }

  /** Requests held now. */
  get size(): number {
    return this.pending.size;
  }

  private evict(): void {
    while (this.pending.size > MAX_HELD_STEP_REQUESTS) {
      const oldest = this.pending.keys().next().value as string;
      this.pending.delete(oldest);
    }
    if (this.holdMs === undefined) return;
    const cutoff = this.now() - this.holdMs;
    // Held in the order they came (hold re-inserts), so the expired ones are at the front.
    for (const [taskId, held] of this.pending) {
      if (held.heldAt > cutoff) break;
      this.pending.delete(taskId);
    }
    if (this.pending.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

/**
 * What a step needs of the request that asked for it: the HTTP objects the application's
 * enhancers see. The JSON-RPC message the endpoint left on `request.body` (up to the whole body:
 * megabytes of arguments) is replaced by its envelope, so holding the request holds no arguments.
 */
function slim(exchange: HttpExchange): CallHttp {
  const request = exchange.request as { body?: unknown };
  if (request.body === exchange.message && exchange.message !== undefined)
    request.body = envelopeOf(exchange.message);
  return { request: exchange.request, raw: exchange.raw, response: exchange.response };
}

function envelopeOf(message: unknown): Record<string, unknown> {
  const { jsonrpc, id, method, params } = (message ?? {}) as Record<string, unknown>;
  const { name, taskId } = (params ?? {}) as Record<string, unknown>;
  return {
    jsonrpc,
    id,
    method,
    params: {
      ...(typeof name === 'string' && { name }),
      ...(typeof taskId === 'string' && { taskId }),
    },
  };
}
