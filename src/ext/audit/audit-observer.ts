import { randomBytes } from 'node:crypto';
import type { McpCallStart, McpCoreEvent, McpCoreEventObserver } from '../../extension-api';
import { DeferredCallDrafts, draftsOf, startedDraft, type AuditedCall } from './audit-drafts';
import { auditDigest } from './audit-values';
import type { AuditWriter } from './audit-writer';

/**
 * The audit trail as an observer of the core's events: each event becomes its records, queued on
 * the writer (a call's are drafted by the writer, with its next batch); with the `strict` policy a
 * call's `mcp.call.started` is written before anything of it runs (a rejection refuses the call),
 * and its outcome record carries the same `call_id`.
 * @internal
 */
export class AuditObserver implements McpCoreEventObserver {
  private readonly calls = new WeakMap<object, AuditedCall>();
  readonly starting?: (start: McpCallStart) => Promise<void>;
  /**
   * Call ids: this process's random prefix and a counter — unique in the trail, and a call pays a
   * short string for it instead of a UUID's (which the records' own `event_id`s stay).
   */
  private readonly callIdPrefix = randomBytes(6).toString('base64url');
  private callCount = 0;

  constructor(
    private readonly writer: AuditWriter,
    strict: boolean,
  ) {
    if (strict) this.starting = (start) => this.started(start);
  }

  observe(event: McpCoreEvent): void {
    // A call's records are drafted with the writer's next batch: off the call's path, and warm.
    if (event.kind === 'call')
      return this.writer.addLater(
        new DeferredCallDrafts(event, this.auditedCall(event.handle), Date.now()),
      );
    for (const draft of draftsOf(event, (handle) => this.auditedCall(handle)))
      this.writer.add(draft);
  }

  private started(start: McpCallStart): Promise<void> {
    const audited = { id: this.nextCallId(), argumentsDigest: auditDigest(start.arguments) };
    this.calls.set(start.handle, audited);
    return this.writer.addAndWait(startedDraft(start, audited));
  }

  private auditedCall(handle: object): AuditedCall {
    return this.calls.get(handle) ?? { id: this.nextCallId() };
  }

  private nextCallId(): string {
    return `${this.callIdPrefix}-${(++this.callCount).toString(36)}`;
  }
}
