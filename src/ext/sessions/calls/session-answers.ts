import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SESSION_OPTIONS, type SessionOptions } from '../session.options';
import { SESSION_CHANNEL, type JsonRpcId } from '../session-channel';
import { FleetBus } from '../../../extension-api';

/** Why an answer did not come. @internal */
export type UnansweredReason = 'timeout' | 'aborted' | 'too_many_pending';

/** What a waiting server-to-client request ended with. @internal */
export type AwaitedAnswer =
  | { readonly kind: 'answer'; readonly response: string }
  | { readonly kind: 'unanswered'; readonly reason: UnansweredReason };

interface Waiter {
  readonly settle: (answer: AwaitedAnswer) => void;
}

/**
 * The server-to-client requests of this instance's 2025-era calls waiting for their answers. An
 * answer may be posted to any instance: the one that receives it settles its own waiter, or (on a
 * fleet) publishes it on the sessions' fleet channel, where the instance holding the waiter takes
 * it. Each wait is bounded (`sessions.answerTimeoutMs`) and each session has at most
 * `sessions.maxPendingRequests` at once, so a client that never answers holds a bounded amount.
 * @internal
 */
@Injectable()
export class SessionAnswers implements OnModuleInit, OnModuleDestroy {
  private readonly waiters = new Map<string, Waiter>();
  private readonly pendingBySession = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    @Inject(SESSION_OPTIONS) private readonly options: SessionOptions,
    private readonly bus: FleetBus,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.bus.subscribe(SESSION_CHANNEL, (event, origin) => {
      if (event.kind === 'answer' && origin === 'remote')
        this.settle(event.sessionId, event.id, event.response);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    for (const waiter of [...this.waiters.values()])
      waiter.settle({ kind: 'unanswered', reason: 'aborted' });
  }

  /** A fresh id for a server-to-client request: unguessable, never one a client would pick. */
  newRequestId(): string {
    return `nestjs-mcp-${randomBytes(12).toString('base64url')}`;
  }

  /**
   * Waits for the answer to request `id` of the session; `registered` runs once the wait is in
   * place (send the request then, so no answer can arrive before its waiter).
   */
  wait(
    sessionId: string,
    id: JsonRpcId,
    signal: AbortSignal,
    registered: () => void,
  ): Promise<AwaitedAnswer> {
    const pending = this.pendingBySession.get(sessionId) ?? 0;
    if (pending >= this.options.maxPendingRequests)
      return Promise.resolve({ kind: 'unanswered', reason: 'too_many_pending' });
    if (signal.aborted) return Promise.resolve({ kind: 'unanswered', reason: 'aborted' });
    const key = waiterKey(sessionId, id);
    return new Promise<AwaitedAnswer>((resolve) => {
      const onAbort = () => settle({ kind: 'unanswered', reason: 'aborted' });
      const timer = setTimeout(
        () => settle({ kind: 'unanswered', reason: 'timeout' }),
        this.options.answerTimeoutMs,
      );
      const settle = (answer: AwaitedAnswer) => {
        if (this.waiters.get(key) !== waiter) return;
        this.waiters.delete(key);
        const left = (this.pendingBySession.get(sessionId) ?? 1) - 1;
        if (left > 0) this.pendingBySession.set(sessionId, left);
        else this.pendingBySession.delete(sessionId);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const waiter: Waiter = { settle };
      this.waiters.set(key, waiter);
      this.pendingBySession.set(sessionId, pending + 1);
      signal.addEventListener('abort', onAbort, { once: true });
      registered();
    });
  }

  /**
   * An answer the client posted: settles this instance's waiter, or goes to the other instances.
   * `response` is the JSON-RPC response as JSON text with exact numbers.
   */
  deliver(sessionId: string, id: JsonRpcId, response: string): void {
    // Only ids this module drew can be waited for: anything else is not worth a message to the fleet.
    if (typeof id !== 'string' || !REQUEST_ID.test(id)) return;
    if (this.settle(sessionId, id, response)) return;
    if (this.bus.fleet)
      this.bus.publish(SESSION_CHANNEL, { kind: 'answer', sessionId, id, response });
  }

  private settle(sessionId: string, id: JsonRpcId, response: string): boolean {
    const waiter = this.waiters.get(waiterKey(sessionId, id));
    waiter?.settle({ kind: 'answer', response });
    return waiter !== undefined;
  }
}

/** The ids {@link SessionAnswers.newRequestId} draws. */
const REQUEST_ID = /^nestjs-mcp-[A-Za-z0-9_-]{16}$/;

function waiterKey(sessionId: string, id: JsonRpcId): string {
  return `${sessionId} ${typeof id}:${String(id)}`;
}
