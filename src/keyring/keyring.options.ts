import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import type { KeyringConfig } from './keyring-fingerprint';

/** The `keyring` option, checked for its shape (the keys themselves are checked by the keyring). @internal */
export interface KeyringOptions {
  readonly keyring: KeyringConfig | undefined;
  /** Whether an ephemeral key may stand in for a missing keyring in production. */
  readonly allowEphemeralKey?: boolean;
}

/** Injection token of the {@link KeyringOptions}. @internal */
export const KEYRING_OPTIONS = Symbol('KeyringOptions');

/** Checks the shape of the `keyring` option, naming it when it is wrong. @internal */
export function resolveKeyringOptions(
  keyring: KeyringConfig | undefined,
  allowEphemeralKey: unknown,
): KeyringOptions {
  if (allowEphemeralKey !== undefined && typeof allowEphemeralKey !== 'boolean')
    throw new InvalidModuleOptionsError('allowEphemeralKey', 'must be a boolean');
  const candidate = keyring as Partial<KeyringConfig> | null | undefined;
  if (
    candidate !== undefined &&
    (candidate === null ||
      typeof candidate !== 'object' ||
      typeof candidate.active !== 'string' ||
      candidate.keys === null ||
      typeof candidate.keys !== 'object')
  ) {
    throw new InvalidModuleOptionsError(
      'keyring',
      'must be { active: "<key id>", keys: { "<key id>": <bytes or base64> } }',
    );
  }
  return { keyring, allowEphemeralKey: allowEphemeralKey === true };
}
