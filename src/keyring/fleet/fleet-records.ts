import type { KeyringManager } from '../keyring-manager.service';
import type { ProtectionKey } from '../protection-key';
import type { RecordIntegrity } from '../record-integrity';
import type { KeyWrapper } from '../wrapping/key-wrapper.interface';
import { checkedWrappedEntry } from '../keyring-entry';

/**
 * The keyring a fleet is rotated to: every key staged through it (wrapped entries and key labels
 * only, never material), the active key, and the keys removed (so an instance that starts from an
 * older configuration drops them too). `seq` grows with every change, and no instance ever applies
 * a lower one than it has seen: a replayed record is refused. Keys are a Map, so any key id (even
 * `constructor` or `__proto__`) is only ever data.
 * @internal
 */
export interface DesiredKeyring {
  readonly seq: number;
  readonly active: string | undefined;
  readonly keys: ReadonlyMap<string, KeyWrapper.Entry>;
  readonly removed: readonly string[];
}

/** What one instance holds, as it reports it to the fleet. @internal */
export interface InstanceReport {
  readonly name: string;
  readonly active: string | undefined;
  readonly keys: readonly string[];
  readonly fingerprint: string;
  readonly failures: Readonly<Record<string, string>>;
  /** The desired keyring's `seq` this instance has applied. */
  readonly seq: number;
}

/** Keys a desired keyring names at most (staged and removed alike). @internal */
export const MAX_FLEET_KEYS = 64;
const MAX_RECORD_LENGTH = 65_536;
const MAX_REPORT_LENGTH = 16_384;
const DESIRED_DOMAIN = 'keyring-desired';
const REPORT_DOMAIN = 'keyring-report';
const KEY_ID = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/;
const FINGERPRINT = /^[0-9a-f]{64}$/;

/** `<tag> <json>`: the record and its tag under the keyring. @internal */
export function encodeDesired(desired: DesiredKeyring, integrity: RecordIntegrity): string {
  // Object.fromEntries defines own properties: "__proto__" stays a key like any other.
  const json = JSON.stringify({ ...desired, keys: Object.fromEntries(desired.keys) });
  return `${integrity.tag(DESIRED_DOMAIN, [json])} ${json}`;
}

/**
 * The desired keyring in `text`, or `undefined` when it is not exactly one of ours: too long,
 * tagged with a key this keyring does not hold, or the wrong shape (it is read from Redis).
 * @internal
 */
export function decodeDesired(
  text: unknown,
  integrity: RecordIntegrity,
): DesiredKeyring | undefined {
  const json = verified(text, integrity, DESIRED_DOMAIN, MAX_RECORD_LENGTH, (body) => [body]);
  const value = json === undefined ? undefined : parse(json);
  if (!value || !Number.isSafeInteger(value.seq) || (value.seq as number) < 1) return undefined;
  if (value.active !== undefined && !isKeyId(value.active)) return undefined;
  const keys = value.keys;
  const removed = value.removed;
  if (keys === null || typeof keys !== 'object' || Array.isArray(keys)) return undefined;
  if (!Array.isArray(removed) || !removed.every(isKeyId)) return undefined;
  // JSON.parse makes own properties, "__proto__" included: Object.entries sees every key id.
  const entries = Object.entries(keys as Record<string, unknown>);
  if (entries.length + removed.length > MAX_FLEET_KEYS * 2) return undefined;
  const checked = new Map<string, KeyWrapper.Entry>();
  for (const [id, entry] of entries) {
    if (!isKeyId(id) || entry === null || typeof entry !== 'object') return undefined;
    try {
      checked.set(id, checkedWrappedEntry(id, entry));
    } catch {
      return undefined;
    }
  }
  return { seq: value.seq as number, active: value.active, keys: checked, removed };
}

/** `<tag> <json>` of a report, the tag covering the instance's name. @internal */
export function encodeReport(report: InstanceReport, integrity: RecordIntegrity): string {
  const json = JSON.stringify(report);
  return `${integrity.tag(REPORT_DOMAIN, [report.name, json])} ${json}`;
}

/** The report of instance `name` in `text`, or `undefined` when it is not one of ours. @internal */
export function decodeReport(
  name: string,
  text: unknown,
  integrity: RecordIntegrity,
): InstanceReport | undefined {
  const json = verified(text, integrity, REPORT_DOMAIN, MAX_REPORT_LENGTH, (body) => [name, body]);
  const value = json === undefined ? undefined : parse(json);
  if (!value || value.name !== name || !Number.isSafeInteger(value.seq)) return undefined;
  const failures = value.failures;
  if (
    (value.active !== undefined && !isKeyId(value.active)) ||
    !Array.isArray(value.keys) ||
    value.keys.length > MAX_FLEET_KEYS * 2 ||
    !value.keys.every(isKeyId) ||
    typeof value.fingerprint !== 'string' ||
    !FINGERPRINT.test(value.fingerprint) ||
    failures === null ||
    typeof failures !== 'object' ||
    Array.isArray(failures) ||
    !Object.entries(failures).every(
      ([id, reason]) => isKeyId(id) && typeof reason === 'string' && reason.length <= 512,
    )
  )
    return undefined;
  return {
    name,
    active: value.active,
    keys: value.keys,
    fingerprint: value.fingerprint,
    failures: recordOf(Object.entries(failures as Record<string, string>)),
    seq: value.seq as number,
  };
}

function verified(
  text: unknown,
  integrity: RecordIntegrity,
  domain: string,
  maxLength: number,
  parts: (json: string) => string[],
): string | undefined {
  if (typeof text !== 'string' || text.length > maxLength) return undefined;
  const space = text.indexOf(' ');
  if (space <= 0) return undefined;
  const json = text.slice(space + 1);
  return integrity.verify(text.slice(0, space), domain, parts(json)) ? json : undefined;
}

function parse(json: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isKeyId(value: unknown): value is string {
  return typeof value === 'string' && KEY_ID.test(value);
}

/**
 * A record keyed by key id without a prototype, so that no id (`constructor`, `toString`,
 * `__proto__`) reads or writes anything but its own entry. @internal
 */
export function recordOf(entries: Iterable<readonly [string, string]>): Record<string, string> {
  const record = Object.create(null) as Record<string, string>;
  for (const [id, value] of entries) record[id] = value;
  return record;
}

/** The fleet's keyring before its first change: this instance's, numbered from `seq`. @internal */
export function initialDesired(keyring: KeyringManager, seq = 0): DesiredKeyring {
  const snapshot = keyring.snapshot();
  const keys = new Map<string, NonNullable<ProtectionKey['entry']>>();
  for (const { id } of snapshot.keys) {
    const entry = keyring.findKey(id)?.entry;
    if (entry) keys.set(id, entry);
  }
  return { seq, active: snapshot.activeKeyId, keys, removed: [] };
}

const NUDGE_DOMAIN = 'keyring-nudge';

/** The message that tells the fleet its keyring changed: the sender, tagged under the keyring. @internal */
export function encodeNudge(origin: string, integrity: RecordIntegrity): string {
  return `${origin}.${integrity.tag(NUDGE_DOMAIN, [origin])}`;
}

/** Whether `message` is another instance's authentic nudge (never this one's own). @internal */
export function isForeignNudge(message: string, self: string, integrity: RecordIntegrity): boolean {
  const dot = message.indexOf('.');
  const origin = message.slice(0, dot);
  return (
    dot > 0 &&
    message.length <= 256 &&
    origin !== self &&
    integrity.verify(message.slice(dot + 1), NUDGE_DOMAIN, [origin])
  );
}
