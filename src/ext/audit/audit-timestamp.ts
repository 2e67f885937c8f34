let stampedMs = Number.NaN;
let stamp = '';
let secondStart = Number.NaN;
let secondPrefix = '';

/**
 * A record's `occurred_at`: `ms` (now, by default) as RFC 3339 in UTC with milliseconds, as
 * `Date.prototype.toISOString` writes it — formatted by it once a second, the milliseconds added.
 * @internal
 */
export function auditTimestamp(ms = Date.now()): string {
  if (ms === stampedMs) return stamp;
  const second = ms - (((ms % 1000) + 1000) % 1000);
  if (second !== secondStart) {
    secondStart = second;
    // `YYYY-MM-DDTHH:MM:SS.` (and the years past 9999 or before 0 that toISOString widens).
    secondPrefix = new Date(second).toISOString().slice(0, -4);
  }
  stampedMs = ms;
  stamp = `${secondPrefix}${String(ms - second).padStart(3, '0')}Z`;
  return stamp;
}
