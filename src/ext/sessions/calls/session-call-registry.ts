import { Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SESSION_CHANNEL, type JsonRpcId } from '../session-channel';
import { FleetBus } from '../../../extension-api';

/**
 * The requests of 2025-era sessions in flight on this instance, so that a `notifications/cancelled`
 * (posted to any instance) or a deleted session ends them wherever they run.
 * @internal
 */
@Injectable()
export class SessionCallRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly calls = new Map<string, Map<string, AbortController>>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly bus: FleetBus) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe(SESSION_CHANNEL, (event) => {
      if (event.kind === 'cancel')
        this.calls.get(event.sessionId)?.get(idKey(event.requestId))?.abort();
      if (event.kind === 'closed')
        for (const controller of this.calls.get(event.sessionId)?.values() ?? [])
          controller.abort();
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    for (const calls of this.calls.values())
      for (const controller of calls.values()) controller.abort();
  }

  /** Tracks a request until `untrack()`; `controller` aborts when it is cancelled. */
  track(sessionId: string, requestId: JsonRpcId, controller: AbortController): () => void {
    let calls = this.calls.get(sessionId);
    if (!calls) this.calls.set(sessionId, (calls = new Map()));
    const key = idKey(requestId);
    calls.set(key, controller);
    return () => {
      if (calls.get(key) === controller) calls.delete(key);
      if (calls.size === 0 && this.calls.get(sessionId) === calls) this.calls.delete(sessionId);
    };
  }

  /** A client cancelled one of its requests: it ends on whichever instance runs it. */
  cancel(sessionId: string, requestId: JsonRpcId): void {
    this.bus.publish(SESSION_CHANNEL, { kind: 'cancel', sessionId, requestId });
  }
}

function idKey(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}
