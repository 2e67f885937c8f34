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
}

/** Key material given in configuration: raw bytes, or base64 text. @publicApi */
export type KeyMaterial = Uint8Array | string;

/** Initial keys: the active key id and every key's material. @publicApi */
export interface KeyringConfig {
  active: string;
  keys: Record<string, KeyMaterial>;
}
