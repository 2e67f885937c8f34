import { ProtocolError } from '@modelcontextprotocol/server';
import { McpErrorCode } from '../../kit/errors/mcp-error-codes';
import { INPUT_REQUEST_DESCRIPTORS } from '../../input/input-request-descriptor';
import type { McpInputRequest } from '../../input/mcp-input-request';
import type { McpInputResponse } from '../../input/mcp-input-response';
import type { McpInputResponses } from '../../input/mcp-input-responses';
import { questionFingerprint } from './question-fingerprint';
import { encodeLedger, MAX_REPLAY_SLOTS, slotKey, type LedgerSlot } from './replay-ledger';
import { ReplayPendingSignal } from './replay-pending.signal';

/** An answered ask: its slot key (for messages about it) and the answer. @internal */
export interface AnsweredAsk {
  readonly key: string;
  readonly answer: McpInputResponse;
}

/** Marks a promise handled, so an ask the handler never awaits cannot become an unhandled rejection. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * One execution of a replay-style handler against its ledger. The Nth ask is slot N: an answered
 * slot resolves at once with its recorded answer; the first unanswered one ends the round, and so
 * does every other unanswered ask made before the handler next waits on I/O or a timer (the asks of
 * one `Promise.all`), which makes them one round with several keys. Each slot keeps the
 * fingerprint of its question; another question at a recorded slot is a broken contract.
 * @internal
 */
export class ReplayExecution {
  private readonly slots: LedgerSlot[];
  private cursor = 0;
  private readonly pending = new Map<string, McpInputRequest>();
  private closed = false;
  private broken: ProtocolError | undefined;
  private overflowed = false;
  private encoded: string | undefined;

  private constructor(slots: LedgerSlot[]) {
    this.slots = slots;
  }

  /** Continues a flow: `slots` from the sealed ledger, with this round's answers to the slots asked last round. */
  static resume(slots: readonly LedgerSlot[], responses: McpInputResponses): ReplayExecution {
    return new ReplayExecution(
      slots.map((slot, index) => {
        if (slot.answer !== undefined) return slot;
        // `find` answers only keys the previous round asked, parsed as the kind asked for.
        const answer = responses.find(slotKey(index));
        return answer?.kind === slot.kind ? { ...slot, answer } : slot;
      }),
    );
  }

  /** Asks `request` at the next slot. */
  ask(request: McpInputRequest): Promise<AnsweredAsk> {
    const index = this.cursor++;
    const key = slotKey(index);
    if (this.broken) return handled(Promise.reject(this.broken));
    if (index >= MAX_REPLAY_SLOTS) {
      this.overflowed = true;
      return handled(Promise.reject(new ReplayPendingSignal()));
    }
    const fingerprint = questionFingerprint(request);
    const slot = this.slots[index];
    if (slot !== undefined && slot.fingerprint !== fingerprint) {
      this.broken = new ProtocolError(
        McpErrorCode.InvalidParams,
        `Invalid params: the question at "${key}" differs from the one recorded for it; a ` +
          'replay-style handler must ask the same questions in the same order every round',
        { key },
      );
      return handled(Promise.reject(this.broken));
    }
    if (slot?.answer !== undefined) return Promise.resolve({ key, answer: slot.answer });
    if (!this.closed) {
      if (slot === undefined) {
        const kind = INPUT_REQUEST_DESCRIPTORS[request.type].responseKind;
        this.slots.push({ fingerprint, kind, answer: undefined });
      }
      if (this.pending.size === 0) setImmediate(() => this.close());
      this.pending.set(key, request);
    }
    return handled(Promise.reject(new ReplayPendingSignal()));
  }

  /** No ask joins this round any more (the handler settled, or waited on I/O or a timer). */
  close(): void {
    this.closed = true;
  }

  /** The questions this round ends with, by slot key; empty when every ask was answered. */
  get pendingAsks(): ReadonlyMap<string, McpInputRequest> {
    return this.pending;
  }

  /** The -32602 for a changed question, when the handler asked one. */
  get contractViolation(): ProtocolError | undefined {
    return this.broken;
  }

  /** Whether the handler asked more than {@link MAX_REPLAY_SLOTS} questions in one flow. */
  get overflow(): boolean {
    return this.overflowed;
  }

  /** The ledger to carry to the next round, or `undefined` when nothing was ever asked. */
  encodedLedger(): string | undefined {
    if (this.slots.length === 0) return undefined;
    // Slots change only while the round is open.
    if (!this.closed) return encodeLedger(this.slots);
    this.encoded ??= encodeLedger(this.slots);
    return this.encoded;
  }
}
