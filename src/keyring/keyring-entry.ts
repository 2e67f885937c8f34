import { clip } from '../kit/clip';
import type { KeyMaterial } from './keyring-fingerprint';
import { KeyringError } from './keyring.error';
import { ProtectionKey } from './protection-key';
import type { KeyWrapper } from './wrapping/key-wrapper.interface';

/** A keyring entry: key material, or a wrapped entry a {@link KeyWrapper} unwraps. @internal */
export type KeyringEntry = KeyMaterial | KeyWrapper.Entry;

const ENTRY_FIELD = /^[A-Za-z][A-Za-z0-9]{0,31}$/;
/** Longest wrapped reference: a KMS CiphertextBlob of a 32-byte key is about 250 base64 characters. */
const MAX_REFERENCE_LENGTH = 8_192;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Whether `entry` is a wrapped entry rather than material. @internal */
export function isWrappedEntry(entry: unknown): entry is KeyWrapper.Entry {
  return (
    entry !== null &&
    typeof entry === 'object' &&
    !(entry instanceof Uint8Array) &&
    !Array.isArray(entry)
  );
}

/** `entry` as a checked wrapped entry: one field, a short name, a bounded reference. @internal */
export function checkedWrappedEntry(id: string, entry: object): KeyWrapper.Entry {
  const fields = Object.keys(entry);
  const field = fields[0];
  const reference = (entry as Record<string, unknown>)[field];
  if (
    fields.length !== 1 ||
    !ENTRY_FIELD.test(field) ||
    typeof reference !== 'string' ||
    reference.length === 0 ||
    reference.length > MAX_REFERENCE_LENGTH
  )
    throw new KeyringError(
      `Key "${clip(id, 64)}" must be material, or one wrapped field such as {"kms":"<base64>"} or {"pkcs11":"<label>"} (a reference of at most ${MAX_REFERENCE_LENGTH} characters)`,
    );
  return Object.freeze({ [field]: reference });
}

/** Key material as bytes the caller may wipe, or a refusal naming the key id. @internal */
export function materialBytes(id: string, material: unknown): Uint8Array {
  if (material instanceof Uint8Array) return material;
  if (typeof material === 'string' && BASE64.test(material)) return Buffer.from(material, 'base64');
  throw new KeyringError(`Key "${clip(id, 64)}" must be bytes or base64 text`);
}

/**
 * The key of one entry: material read as it is, a wrapped entry unwrapped through `wrapper`.
 * Every buffer of plaintext material the keyring owns (decoded base64, the wrapper's answer) is
 * zeroed once the key is made. Failures are {@link KeyringError}s naming the key id and the
 * wrapper's reason, never material.
 * @internal
 */
export async function keyFromEntry(
  id: string,
  entry: unknown,
  wrapper: KeyWrapper | undefined,
): Promise<ProtectionKey> {
  if (!isWrappedEntry(entry)) return keyFromMaterial(id, entry);
  const wrapped = checkedWrappedEntry(id, entry);
  const field = Object.keys(wrapped)[0];
  if (!wrapper)
    throw new KeyringError(
      `Key "${id}" is wrapped ("${field}"), but the keyring has no wrapper: set keyring.wrapper or provide KeyWrapper`,
    );
  let unwrapped: KeyWrapper.Unwrapped;
  try {
    unwrapped = await wrapper.unwrap(id, wrapped);
  } catch (error) {
    throw new KeyringError(`Key "${id}" could not be unwrapped (${field}): ${reasonOf(error)}`);
  }
  if (unwrapped instanceof Uint8Array) {
    try {
      return new ProtectionKey(id, unwrapped, wrapped);
    } finally {
      unwrapped.fill(0);
    }
  }
  try {
    return await ProtectionKey.resident(id, unwrapped, wrapped);
  } catch (error) {
    if (error instanceof KeyringError) throw error;
    throw new KeyringError(
      `Key "${id}" could not be used in its token (${field}): ${reasonOf(error)}`,
    );
  }
}

/** A key of raw material; base64 decoded here is wiped once the key is made. @internal */
export function keyFromMaterial(id: string, material: unknown): ProtectionKey {
  const bytes = materialBytes(id, material);
  try {
    return new ProtectionKey(id, bytes);
  } finally {
    if (bytes !== material) bytes.fill(0);
  }
}

/** A wrapper's failure, for a message: its name and message, clipped. @internal */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return 'the wrapper failed';
  const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
  return clip(`${name}${error.message}`, 300);
}
