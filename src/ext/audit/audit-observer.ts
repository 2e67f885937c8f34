import { randomUUID } from 'node:crypto';
import type { McpCallStart, McpCoreEvent, McpCoreEventObserver } from '../../extension-api';
import { draftsOf, startedDraft } from './audit-drafts';
import type { AuditWriter } from './audit-writer';

/**
 * The audit trail as an observer of the core's events: each event becomes its records, queued on
 * the writer; with the `strict` policy a call's `mcp.call.started` is written before anything of
 * it runs (a rejection refuses the call), and its outcome record carries the same `call_id`.
 * @internal
 */
export class AuditObserver implements McpCoreEventObserver {
  private readonly callIds = new WeakMap<object, string>();
  readonly starting?: (start: McpCallStart) => Promise<void>;

  constructor(
    private readonly writer: AuditWriter,
    strict: boolean,
  ) {
    if (strict) this.starting = (start) => this.started(start);
  }

  observe(event: McpCoreEvent): void {
    for (const draft of draftsOf(event, (handle) => this.callIdOf(handle))) this.writer.add(draft);
  }

  private started(start: McpCallStart): Promise<void> {
    const callId = randomUUID();
    this.callIds.set(start.handle, callId);
    return this.writer.addAndWait(startedDraft(start, callId));
  }

  private callIdOf(handle: object): string {
    return this.callIds.get(handle) ?? randomUUID();
  }
}
