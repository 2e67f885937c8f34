import { createHash } from 'node:crypto';
import type { ProtectionKey } from './protection-key';
import type { KeyWrapper } from './wrapping/key-wrapper.interface';

const FINGERPRINT_PROFILE = 'nestjs-mcp-aes-256-gcm-v1';

/** The {@link KeyringFingerprint} of `keys` with `activeId` active. @internal */
export function fingerprintOf(
  keys: ReadonlyMap<string, ProtectionKey>,
  activeId: string | undefined,
): KeyringFingerprint {
  const hash = createHash('sha256').update(`${FINGERPRINT_PROFILE}\n`);
  for (const id of [...keys.keys()].sort()) {
    const key = keys.get(id) as ProtectionKey;
    hash.update(`${id === activeId ? 'active' : 'verification'}\t${id}\t${key.digest()}\n`);
  }
  return { version: 2, profile: FINGERPRINT_PROFILE, value: hash.digest('hex') };
}

/** The {@link KeyringSnapshot} of `keys` with `activeId` active, without the fleet. @internal */
export function snapshotOf(
  keys: ReadonlyMap<string, ProtectionKey>,
  activeId: string | undefined,
  ephemeral: boolean,
): KeyringSnapshot {
  const others = [...keys.keys()].filter((id) => id !== activeId).sort();
  return {
    activeKeyId: activeId,
    keys: [
      ...(activeId === undefined ? [] : [{ id: activeId, role: 'active' as const }]),
      ...others.map((id) => ({ id, role: 'verification' as const })),
    ],
    ephemeral,
    fingerprint: fingerprintOf(keys, activeId),
  };
}

/**
 * A secret-free digest of a keyring: equal on two servers exactly when they hold the same key ids
 * with the same bytes and the same active key. Compare all three fields; different versions or
 * profiles are not comparable.
 *
 * @publicApi
 */
export interface KeyringFingerprint {
  readonly version: 2;
  readonly profile: string;
  /** Hex SHA-256. */
  readonly value: string;
}

/** A secret-free view of a keyring. @publicApi */
export interface KeyringSnapshot {
  /** Unset only while a keyring configured without keys is unused (a custom protector seals). */
  readonly activeKeyId: string | undefined;
  /** Every key, active first, then verification-only keys by id. */
  readonly keys: ReadonlyArray<{ readonly id: string; readonly role: 'active' | 'verification' }>;
  /** Whether the active key is an ephemeral one generated at startup (false once another key is active). */
  readonly ephemeral: boolean;
  readonly fingerprint: KeyringFingerprint;
  /**
   * With the `redis` option (fleet rotation), what every live instance of the fleet reports, as
   * `KeyringManager.stage`, `activate`, `remove` and `fleetSnapshot` answer it; `agree` when each
   * shows this instance's fingerprint.
   */
  readonly fleet?: {
    readonly agree: boolean;
    readonly instances: ReadonlyArray<{
      /** `keyring.fleet.instanceName`, by default the host name and process id. */
      readonly name: string;
      /** Whether the report is this instance's own. */
      readonly self: boolean;
      readonly activeKeyId: string | undefined;
      readonly keyIds: readonly string[];
      readonly fingerprint: string;
      /** Keys the instance could not unwrap, with the reason (never key material). */
      readonly failures: Readonly<Record<string, string>>;
    }>;
  };
}

/** Key material given in configuration: raw bytes, or base64 text. @publicApi */
export type KeyMaterial = Uint8Array | string;

/**
 * The keyring: the active key id, every key's material or wrapped entry, and how wrapped entries
 * are unwrapped and rotation reaches a fleet.
 * @publicApi
 */
export interface KeyringConfig {
  active: string;
  /**
   * Each key: material (bytes or base64, at least 32 bytes), or a wrapped entry the wrapper
   * unwraps at startup (`{ kms: '<base64 CiphertextBlob>' }`, `{ pkcs11: '<key label>' }`,
   * `{ pkcs11Wrapped: '<base64>' }`). Wrapped entries are safe to keep in a plain secret or config map.
   */
  keys: Record<string, KeyMaterial | KeyWrapper.Entry>;
  /**
   * What unwraps wrapped entries (`AwsKmsKeyWrapper` from `nestjs-mcp/aws-kms`, `Pkcs11KeyWrapper`
   * from `nestjs-mcp/pkcs11`, or your own). You may instead provide `KeyWrapper` in a global module.
   */
  wrapper?: KeyWrapper;
  /** Rotation across a fleet sharing the `redis` option (see docs/key-rotation.md). */
  fleet?: {
    /** How this instance is named in fleet reports. Default `<host name>:<process id>`. */
    instanceName?: string;
    /**
     * How long `stage`, `activate` and `remove` wait for every live instance to follow, in ms.
     * Default 10,000.
     */
    waitMs?: number;
  };
}
