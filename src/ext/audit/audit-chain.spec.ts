import { hash } from 'node:crypto';
import { rfc8785Json } from '../../kit/rfc8785-json';
import { chained, eventHashOf, recordJson } from './audit-chain';
import { numbered } from './audit-checkpoint';
import { draft } from './audit-drafts';
import { AUDIT_EXTENSION, type AuditDraft } from './audit-record';

describe('chained (an audit record linked and hashed)', () => {
  const drafts: AuditDraft[] = [
    draft('mcp.call.completed', 'user:alice', 'transfer_funds', 'allowed', {
      call_id: 'p-1',
      operation: 'tool',
      method: 'tools/call',
      era: '2026-07-28',
      request_id: '7',
      arguments_digest: 'sha256:00',
      arguments: { '10': 'ten', amount: '12.50', note: 'tab\there "quoted" \u2028 é' },
      round: '2',
      flow_id: null,
      result_digest: 'sha256:ff',
    }),
    draft('mcp.input.requested', 'user:\ud83d\ude00', null, 'deferred', {
      asked: [{ key: 'confirm', kind: 'elicitation.form' }],
      session: undefined,
      trace: '4bf92f3577b34da6a3ce929d0e0e4736',
    }),
    draft('mcp.key.activated', 'system', null, 'allowed', {}),
    draft('mcp.call.completed', 'user:bob', 'echo', 'allowed', {
      call_id: 'p-2',
      era: null,
      method: 'tools/call',
      result_digest: 'sha256:ee',
      round: '1',
      zeta: 'ünïcödé \u0000 "\\',
    }),
    draft('mcp.odd', 'p', 't', 'allowed', { '9': 'nine', '10': 'ten', b: true, a: false }),
    {
      ...draft('custom', 'p', 't', 'error', { a: 'b' }),
      extensions: { other: { z: '1', a: '2' } },
    },
  ];

  it('hashes and writes each record as the RFC 8785 form of its fields', () => {
    let previous: string | null = null;
    drafts.forEach((each, index) => {
      const record = chained(numbered(each, 'instance-1', index + 1), previous);
      const { event_hash: eventHash, ...body } = record;
      expect(eventHash).toBe(hash('sha256', rfc8785Json(body), 'hex'));
      expect(eventHashOf({ ...record })).toBe(eventHash);
      expect(recordJson(record)).toBe(rfc8785Json(record));
      expect(record.previous_hash).toBe(previous);
      previous = eventHash;
    });
  });

  it('keeps the fields whose value is null and leaves out the undefined ones', () => {
    const own = drafts[0]?.extensions[AUDIT_EXTENSION] ?? {};
    expect(own).toMatchObject({ flow_id: null, result_digest: 'sha256:ff' });
    const record = draft(
      'mcp.call.refused',
      'p',
      't',
      'denied',
      { a: null, b: undefined },
      { c: null },
    );
    expect(Object.entries(record.extensions[AUDIT_EXTENSION] ?? {})).toEqual([
      ['a', null],
      ['c', null],
    ]);
  });

  it('numbers a record in its own fields and keeps the draft as it was', () => {
    const [first] = drafts as [AuditDraft];
    const before = JSON.stringify(first);
    const record = chained(numbered(first, 'instance-2', 41), 'ab'.repeat(32));
    expect(record.extensions[AUDIT_EXTENSION]).toMatchObject({ instance: 'instance-2', seq: '41' });
    expect(JSON.stringify(first)).toBe(before);
    expect(JSON.parse(recordJson(record))).toEqual(JSON.parse(JSON.stringify(record)));
  });

  it("keeps a record's own fields in RFC 8785 order, numbered or not (nothing to sort when hashed)", () => {
    for (const [index, each] of drafts.entries()) {
      const own = Object.keys(
        numbered(each, 'instance-3', index).extensions[AUDIT_EXTENSION] ?? {},
      );
      // (An object holds integer-like names first whatever the order they came in: those are
      // canonicalized the general way.)
      const named = own.filter((name) => !/^\d/.test(name));
      expect(named).toEqual([...named].sort());
      expect(own).toEqual(expect.arrayContaining(['instance', 'seq']));
    }
  });
});
