import { hash } from 'node:crypto';
import { rfc8785Json } from '../../kit/rfc8785-json';
import type { AuditValue } from './audit-record';
import { setOwnValue } from '../../kit/own-property';

/** SEP-3004's length cap of a protected string, in UTF-16 code units. */
const MAX_STRING = 8192;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
/** Printable ASCII with no space at either end: already what {@link auditText} makes of it. */
const PLAIN = /^(?:[\x21-\x7e][\x20-\x7e]*)?[\x21-\x7e]$/;

/**
 * A string as SEP-3004 protects it: NFC, leading and trailing U+0020 trimmed, at most 8,192 code
 * units; a control character (which SEP-3004 refuses) is recorded as U+FFFD instead.
 * @internal
 */
export function auditText(value: string): string {
  if (value.length <= MAX_STRING && PLAIN.test(value)) return value;
  const text = value
    .normalize('NFC')
    .replace(CONTROL, '\ufffd')
    .replace(/^ +| +$/g, '');
  return text.length > MAX_STRING ? text.slice(0, MAX_STRING) : text;
}

/** `sha256:<hex>` of the RFC 8785 form of `value`, or `unavailable` for what JSON cannot hold. @internal */
export function auditDigest(value: unknown): string {
  try {
    return `sha256:${hash('sha256', rfc8785Json(value), 'hex')}`;
  } catch {
    return 'unavailable';
  }
}

/**
 * A value as an audit record holds it: strings normalized ({@link auditText}), numbers as their
 * RFC 8785 text (SEP-3004 keeps bare numbers out of the hashed body), `undefined` members left out.
 * @internal
 */
export function auditValue(value: unknown, depth = 0): AuditValue {
  if (depth > 16) return 'unavailable';
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return auditText(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'unavailable';
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((item) => auditValue(item ?? null, depth + 1));
  if (typeof value === 'object') {
    const text = (value as { value?: unknown; isLosslessNumber?: unknown }).isLosslessNumber;
    if (text === true) return String((value as { value: string }).value);
    const record: Record<string, AuditValue> = {};
    for (const [key, member] of Object.entries(value as Record<string, unknown>))
      if (member !== undefined) setOwnValue(record, auditText(key), auditValue(member, depth + 1));
    return record;
  }
  return 'unavailable';
}

/** The fields of `args` named in `fields`, as an audit record holds them. @internal */
export function clearFields(
  args: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): Record<string, AuditValue> | undefined {
  if (fields.length === 0) return undefined;
  const clear: Record<string, AuditValue> = {};
  for (const field of fields)
    if (Object.hasOwn(args, field) && args[field] !== undefined)
      clear[field] = auditValue(args[field]);
  return clear;
}
