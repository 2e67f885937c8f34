import { hostname } from 'node:os';
import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { implementing, objectOption, positiveInteger } from '../options/option-checks';
import type { KeyringConfig } from './keyring-fingerprint';
import type { KeyWrapper } from './wrapping/key-wrapper.interface';

/** The `keyring` option, checked for its shape (the keys themselves are checked by the keyring). @internal */
export interface KeyringOptions {
  readonly keyring: KeyringConfig | undefined;
  /** Whether an ephemeral key may stand in for a missing keyring in production. */
  readonly allowEphemeralKey?: boolean;
  /** `keyring.wrapper`, when set. */
  readonly wrapper?: KeyWrapper;
  /** Fleet rotation (used with the `redis` option). */
  readonly fleet?: { readonly instanceName: string; readonly waitMs: number };
}

/** Injection token of the {@link KeyringOptions}. @internal */
export const KEYRING_OPTIONS = Symbol('KeyringOptions');

const DEFAULT_FLEET_WAIT_MS = 10_000;
const MAX_FLEET_WAIT_MS = 600_000;
const INSTANCE_NAME = /^[\x21-\x7e]{1,128}$/;

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
      'must be { active: "<key id>", keys: { "<key id>": <bytes, base64 or a wrapped entry> } }',
    );
  }
  const wrapper = implementing('keyring.wrapper', candidate?.wrapper, ['unwrap']);
  const fleet = objectOption('keyring.fleet', candidate?.fleet);
  const instanceName = fleet?.instanceName ?? `${hostname()}:${process.pid}`;
  if (typeof instanceName !== 'string' || !INSTANCE_NAME.test(instanceName))
    throw new InvalidModuleOptionsError(
      'keyring.fleet.instanceName',
      'must be 1-128 printable ASCII characters without spaces',
    );
  const waitMs = positiveInteger('keyring.fleet.waitMs', fleet?.waitMs, DEFAULT_FLEET_WAIT_MS);
  if (waitMs > MAX_FLEET_WAIT_MS)
    throw new InvalidModuleOptionsError(
      'keyring.fleet.waitMs',
      `must be at most ${MAX_FLEET_WAIT_MS}`,
    );
  return {
    keyring,
    allowEphemeralKey: allowEphemeralKey === true,
    ...(wrapper && { wrapper }),
    fleet: { instanceName, waitMs },
  };
}
