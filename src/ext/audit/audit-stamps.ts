import { randomBytes } from 'node:crypto';

/** Event ids drawn at once (records come in bursts; a draw and a format each time cost more). */
const IDS_PER_DRAW = 128;
const ID_LENGTH = 36;
let ids = '';
let nextId = IDS_PER_DRAW;

/**
 * A record's `event_id`: a random (version 4) UUID. Drawn {@link IDS_PER_DRAW} at a time from the
 * CSPRNG and formatted in one pass, each id a slice of the batch's text.
 * @internal
 */
export function auditEventId(): string {
  if (nextId === IDS_PER_DRAW) {
    ids = formattedUuids(randomBytes(16 * IDS_PER_DRAW));
    nextId = 0;
  }
  const start = ID_LENGTH * nextId++;
  return ids.slice(start, start + ID_LENGTH);
}

/** 16 random bytes each as a version 4, variant 1 UUID (RFC 9562), one after another. */
function formattedUuids(bytes: Buffer): string {
  for (let at = 0; at < bytes.length; at += 16) {
    bytes[at + 6] = ((bytes[at + 6] as number) & 0x0f) | 0x40;
    bytes[at + 8] = ((bytes[at + 8] as number) & 0x3f) | 0x80;
  }
  return bytes.toString('hex').replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/g, '$1-$2-$3-$4-$5');
}

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
