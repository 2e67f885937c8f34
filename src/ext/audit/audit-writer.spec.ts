import { generateKeyPairSync } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { draft } from './audit-drafts';
import type { AuditDeferred } from './audit-pending';
import type { AuditDraft, AuditRecord } from './audit-record';
import { AuditWriter } from './audit-writer';
import { PemAuditSigner } from './signing/pem-audit-signer';
import type { AuditSink } from './sinks/audit-sink';

/** A sink that keeps what it is given, and refuses every batch while `down`. */
class KeptSink implements AuditSink {
  down = false;
  readonly records: AuditRecord[] = [];
  write(records: readonly AuditRecord[]): Promise<void> {
    if (this.down) return Promise.reject(new Error('sink down'));
    this.records.push(...records);
    return Promise.resolve();
  }
}

/** A call's records to draft later, counting when they are drafted. */
class CountedDeferred implements AuditDeferred {
  drafted = 0;
  constructor(private readonly name: string) {}
  drafts(): AuditDraft[] {
    this.drafted++;
    return [draft('mcp.call.completed', 'user:a', this.name, 'allowed', {})];
  }
}

const signer = new PemAuditSigner(
  generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
);

function writerOf(
  sink: AuditSink,
  countDropped: (count: number, reason: string) => void = () => undefined,
): AuditWriter {
  return new AuditWriter(
    sink,
    signer,
    {
      instance: 'instance-a',
      sinkName: 'test',
      checkpointEvery: 1_000,
      checkpointIntervalMs: 60_000,
      queueBound: 100,
      strictTimeoutMs: 1_000,
      countDropped,
    },
    new Logger('test'),
  );
}

async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const written = (sink: KeptSink) =>
  sink.records.filter((record) => record.event_type !== 'audit.checkpoint').map((r) => r.tool_name);

describe('AuditWriter, records drafted with the next batch', () => {
  it('writes deferred and queued records in the order they came, drafting each once', async () => {
    const sink = new KeptSink();
    const writer = writerOf(sink);
    const first = new CountedDeferred('first');
    const third = new CountedDeferred('third');
    writer.addLater(first);
    writer.add(draft('mcp.key.activated', 'system', 'second', 'allowed', {}));
    writer.addLater(third);
    await writer.close();
    expect(written(sink)).toEqual(['first', 'second', 'third']);
    expect([first.drafted, third.drafted]).toEqual([1, 1]);
  });

  it('drafts at once while the sink is down, so that what waits holds records, not calls', async () => {
    const sink = new KeptSink();
    const writer = writerOf(sink);
    sink.down = true;
    writer.add(draft('mcp.key.activated', 'system', 'failed', 'allowed', {}));
    // A strict record shares the failed write: the sink is known to be down once it is refused.
    await expect(
      writer.addAndWait(draft('mcp.call.started', 'user:a', 'refused', 'allowed', {})),
    ).rejects.toThrow();
    const during = new CountedDeferred('during');
    writer.addLater(during);
    expect(during.drafted).toBe(1);
    sink.down = false;
    await waitFor(() => written(sink).length === 2);
    await writer.close();
    expect(written(sink)).toEqual(['failed', 'during']);
    expect(during.drafted).toBe(1);
  });

  it('counts a call whose records cannot be drafted as dropped, and writes the rest', async () => {
    const sink = new KeptSink();
    const dropped: string[] = [];
    const writer = writerOf(sink, (count, reason) => dropped.push(`${count} ${reason}`));
    writer.addLater({
      drafts: () => {
        throw new Error('cannot draft');
      },
    });
    writer.addLater(new CountedDeferred('kept'));
    await writer.close();
    expect(dropped).toEqual(['1 unrecordable']);
    expect(written(sink)).toEqual([null, 'kept']);
    expect(sink.records.map((record) => record.event_type)).toContain('audit.records_dropped');
  });
});
