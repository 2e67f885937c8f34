import { randomBytes } from 'node:crypto';

/** UUIDs drawn at once: ids come in bursts, and one draw and one format per id cost more. */
const UUIDS_PER_DRAW = 128;
const UUID_LENGTH = 36;
let drawn = '';
let next = UUIDS_PER_DRAW;

/**
 * A random (version 4) UUID, as `crypto.randomUUID` makes: drawn {@link UUIDS_PER_DRAW} at a time
 * from the CSPRNG and formatted in one pass, each a slice of the draw's text. For ids made per call
 * (flows, audit records), where `randomUUID`'s formatting of each one shows in a profile.
 * @internal
 */
export function randomUuid(): string {
  if (next === UUIDS_PER_DRAW) {
    drawn = formattedUuids(randomBytes(16 * UUIDS_PER_DRAW));
    next = 0;
  }
  const start = UUID_LENGTH * next++;
  return drawn.slice(start, start + UUID_LENGTH);
}

/** 16 random bytes each as a version 4, variant 1 UUID (RFC 9562), one after another. */
function formattedUuids(bytes: Buffer): string {
  for (let at = 0; at < bytes.length; at += 16) {
    bytes[at + 6] = ((bytes[at + 6] as number) & 0x0f) | 0x40;
    bytes[at + 8] = ((bytes[at + 8] as number) & 0x3f) | 0x80;
  }
  const hex = bytes.toString('hex');
  // Slices, not a replace with capture groups: that was most of an id's cost.
  let text = '';
  for (let at = 0; at < hex.length; at += 32)
    text += `${hex.slice(at, at + 8)}-${hex.slice(at + 8, at + 12)}-${hex.slice(at + 12, at + 16)}-${hex.slice(at + 16, at + 20)}-${hex.slice(at + 20, at + 32)}`;
  return text;
}
