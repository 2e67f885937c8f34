import { auditEventId, auditTimestamp } from './audit-stamps';

describe('audit record stamps', () => {
  it('gives every record a distinct random version 4 UUID, past several draws', () => {
    const ids = Array.from({ length: 1_000 }, () => auditEventId());
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('writes each instant as Date.prototype.toISOString does', () => {
    const instants = [
      0, 1, 999, 1_000, 1_001, 59_999, -1, -999, -1_000, -1_001, 1_765_000_000_123,
      1_765_000_000_124, 1_765_000_001_000, 253_402_300_799_999, 253_402_300_800_000,
      -62_198_755_200_001,
    ];
    for (const ms of [...instants, ...instants.reverse()])
      expect([ms, auditTimestamp(ms)]).toEqual([ms, new Date(ms).toISOString()]);
    const now = Date.now();
    expect(auditTimestamp(now)).toBe(new Date(now).toISOString());
  });
});
