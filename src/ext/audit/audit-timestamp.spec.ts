import { auditTimestamp } from './audit-timestamp';

describe("auditTimestamp (a record's occurred_at)", () => {
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
