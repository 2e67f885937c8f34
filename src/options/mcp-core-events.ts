import { Injectable, Logger } from '@nestjs/common';
import type { McpCallStart, McpCoreEvent } from './mcp-core-event';

/** What an extension observes of the core's events (the audit trail is one). @internal */
export interface McpCoreEventObserver {
  /** Every event, as it happens. Must not throw (a throw is logged once and ignored). */
  observe?(event: McpCoreEvent): void;
  /**
   * Awaited after a call's guards and before anything else of it runs (no interceptor, no state
   * consumed, no method). A rejection refuses the call with the retryable `-32000`
   * (`data.retryAfterMs`: the rejection's own `retryAfterMs`, when it has one).
   */
  starting?(start: McpCallStart): Promise<void>;
}

/**
 * The core's events for extensions to observe: each call's outcome per round (and, for an observer
 * that asks, its start before it runs), each refusal with its reason, keyring changes, task and
 * 2025-era session changes, skills served. Whoever makes an event checks {@link watched} first,
 * so nothing is made while nobody observes: a call then pays one property read here, inside the
 * telemetry check it pays anyway (`McpTelemetry.observing`).
 * @internal
 */
@Injectable()
export class McpCoreEvents {
  private readonly logger = new Logger('McpModule');
  private observers: readonly McpCoreEventObserver[] = [];
  private starters: readonly McpCoreEventObserver[] = [];
  private failed = false;

  /** Whether anyone observes (so an event is worth making). */
  get watched(): boolean {
    return this.observers.length > 0;
  }

  /** Whether an observer awaits calls before they run (read once, when the pipelines are built). */
  get startsWatched(): boolean {
    return this.starters.length > 0;
  }

  /** Adds an observer; install it when the module initializes, before the operations are explored. */
  observe(observer: McpCoreEventObserver): void {
    this.observers = [...this.observers, observer];
    if (observer.starting) this.starters = [...this.starters, observer];
  }

  /** Hands `event` to every observer; call only when {@link watched}. */
  publish(event: McpCoreEvent): void {
    for (const observer of this.observers) {
      try {
        observer.observe?.(event);
      } catch (error) {
        this.reportFailure(error);
      }
    }
  }

  /** Awaits every observer's `starting`; rejects with the first failure. */
  async starting(start: McpCallStart): Promise<void> {
    for (const observer of this.starters) await observer.starting?.(start);
  }

  private reportFailure(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.logger.error(
      `An observer of the module's events failed (${error instanceof Error ? error.name : typeof error}); the call was not affected. Logged once.`,
    );
  }
}
