import { Injectable } from '@nestjs/common';
import type { HttpExchange } from '../../pipeline/http-exchange';

/**
 * The requests that created or resumed tasks, kept until the task's next step starts on this
 * instance: that step runs on the request that asked for it, as its caller. A step that starts
 * without one (another instance holds the request) runs detached.
 * @internal
 */
@Injectable()
export class TaskStepRequests {
  private readonly pending = new Map<string, HttpExchange>();

  /** Remembers the request the next step of `taskId` runs on. */
  hold(taskId: string, exchange: HttpExchange): void {
    this.pending.set(taskId, exchange);
  }

  /** The request the next step of `taskId` runs on, if this instance holds it; it is let go. */
  take(taskId: string): HttpExchange | undefined {
    const exchange = this.pending.get(taskId);
    this.pending.delete(taskId);
    return exchange;
  }
}
