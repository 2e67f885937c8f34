import type { AuditEntry, AuditProblem } from './audit-verdict';

/** One record of an instance's chain, as the verifier read it. @internal */
export interface ChainEntry {
  readonly entry: AuditEntry;
  readonly eventId: string | null;
  readonly seq: number;
  readonly hash: string;
  readonly previous: string | null;
}

/** The first break in one instance's chain, named at the record that is out of place. @internal */
export function chainProblem(
  instance: string,
  chain: readonly ChainEntry[],
):
  | { entry: AuditEntry; eventId: string | null; problem: AuditProblem; message: string }
  | undefined {
  let expectedSeq = 1;
  let expectedPrevious: string | null = null;
  for (let at = 0; at < chain.length; at++) {
    const record = chain[at];
    if (record.seq === expectedSeq && record.previous === expectedPrevious) {
      expectedSeq++;
      expectedPrevious = record.hash;
      continue;
    }
    const bad = (which: ChainEntry, problem: AuditProblem, message: string) => ({
      entry: which.entry,
      eventId: which.eventId,
      problem,
      message,
    });
    const next = chain[at + 1];
    // The next record carries on from before this one, and nothing links to this one: it was put
    // in between (a record merely out of order is linked to by its successor).
    const linkedTo = chain.some((each) => each.previous === record.hash);
    if (next && next.seq === expectedSeq && next.previous === expectedPrevious && !linkedTo)
      return bad(record, 'inserted', `it does not belong in the chain of instance ${instance}`);
    // This record links past the one before it, which claims its place: that one was put in.
    const before = chain[at - 1];
    if (before && before.seq === record.seq && record.previous === chain[at - 2]?.hash)
      return bad(before, 'inserted', `it does not belong in the chain of instance ${instance}`);
    if (before && record.seq === before.seq + 1 && record.previous !== before.hash)
      return bad(
        before,
        'inserted',
        `the next record of instance ${instance} does not link to it: it was forged or replaced`,
      );
    if (record.seq > expectedSeq) {
      const later = chain.slice(at + 1).some((each) => each.seq === expectedSeq);
      return later
        ? bad(
            record,
            'reordered',
            `record ${expectedSeq} of instance ${instance} should come first`,
          )
        : bad(
            record,
            'missing',
            `record(s) ${expectedSeq}${record.seq - 1 > expectedSeq ? `–${record.seq - 1}` : ''} of instance ${instance} are missing before it`,
          );
    }
    return bad(
      record,
      'reordered',
      record.seq < expectedSeq
        ? `it comes after record ${expectedSeq - 1} of instance ${instance}, which follows it`
        : `it does not link to the record before it in the chain of instance ${instance}`,
    );
  }
  return undefined;
}
