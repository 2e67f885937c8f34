import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Subject, type Observable } from 'rxjs';
import type { McpFlowEvent } from './mcp-flow-event';

/**
 * The facts the module's metrics count, as an rxjs stream, for an application with its own sink:
 * one event per round of every operation (its flow id, round, outcome, refusal reason, duration)
 * and one per task status change. Nothing is kept: an event nobody subscribed to is never made.
 *
 * @example
 * ```ts
 * constructor(events: McpFlowEvents) {
 *   events.events$.pipe(filter((e) => e.kind === 'round' && e.outcome === 'rejected'))
 *     .subscribe((e) => audit.write(e));
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class McpFlowEvents implements OnModuleDestroy {
  private readonly subject = new Subject<McpFlowEvent>();

  /** Every event from now on; completes when the app closes. */
  readonly events$: Observable<McpFlowEvent> = this.subject.asObservable();

  /** Whether anyone listens (so an event is worth making). @internal */
  get observed(): boolean {
    return this.subject.observed;
  }

  /** @internal */
  emit(event: McpFlowEvent): void {
    this.subject.next(event);
  }

  onModuleDestroy(): void {
    this.subject.complete();
  }
}
