import {
  createHmac,
  createSecretKey,
  hkdfSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { inspect } from 'node:util';
import { KeyringError } from './keyring.error';
import type { KeyWrapper } from './wrapping/key-wrapper.interface';

const KEY_ID = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/;
const MIN_KEY_BYTES = 32;
const REDACTED = '[ProtectionKey: redacted]';
/** HKDF info (memory keys) and KDF label (token-resident keys) of the record-integrity key. */
const INTEGRITY_LABEL = 'nestjs-mcp record integrity hmac-sha256 v1';
/** KDF label of a token-resident key's fingerprint digest. */
const RESIDENT_DIGEST_LABEL = 'nestjs-mcp keyring fingerprint v2 token-resident';

/** What a token-resident key brings: the token's key and what was derived through it. */
interface ResidentParts {
  readonly resident: KeyWrapper.ResidentKey;
  readonly integrity: Uint8Array;
  readonly digest: Uint8Array;
}

/** HKDF-SHA-256 of `material` with `info`, as a KeyObject; the intermediate bytes are zeroed. */
function derivedKey(material: Uint8Array, info: string): KeyObject {
  const bytes = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), info, 32));
  // createSecretKey copies the bytes into the KeyObject: the copy here is ours to wipe.
  const key = createSecretKey(bytes);
  bytes.fill(0);
  return key;
}

/** A one-way digest of the exact material, for fingerprints. */
function materialDigest(material: Uint8Array): string {
  // HMAC zero-pads short keys, so K and K||0x00 would digest alike without the length.
  return createHmac('sha256', material)
    .update(`nestjs-mcp keyring fingerprint v2\n${material.length}`)
    .digest('hex');
}

/**
 * A named key: material held in memory (given, or unwrapped from a KMS or an HSM), or a key that
 * stays in its token. No raw material is kept: a memory key keeps the AES-256 key and the
 * record-integrity key derived from it (HKDF, labels of their own) as KeyObjects, and every
 * intermediate buffer is zeroed; a token-resident key keeps the token's key and the
 * record-integrity key derived inside the token. `toString`, `inspect` and JSON show a redaction.
 *
 * @internal
 */
export class ProtectionKey {
  readonly #encryptionKey: KeyObject | undefined;
  readonly #resident: KeyWrapper.ResidentKey | undefined;
  readonly #integrityKey: KeyObject;
  readonly #digest: string;
  readonly #entry: KeyWrapper.Entry | undefined;

  /**
   * @param material key bytes (copied, never kept), or a token-resident key with what was derived
   *   through it ({@link ProtectionKey.resident})
   * @param entry the wrapped entry the key came from (safe to share), unset for raw material
   */
  constructor(
    readonly id: string,
    material: Uint8Array | ResidentParts,
    entry?: KeyWrapper.Entry,
  ) {
    if (typeof id !== 'string' || !KEY_ID.test(id)) {
      throw new KeyringError("Key ids are 1-64 characters of letters, digits and !#$%&'*+-.^_`|~");
    }
    this.#entry = entry;
    if (material instanceof Uint8Array) {
      if (material.length < MIN_KEY_BYTES)
        throw new KeyringError(
          `Key "${id}" needs at least ${MIN_KEY_BYTES} bytes of material from a secure random source`,
        );
      const copy = Buffer.from(material);
      // A KeyObject is imported once, instead of on every cipher creation.
      this.#encryptionKey = derivedKey(copy, 'nestjs-mcp request-state aes-256-gcm v1');
      // A key of its own for authenticating records, so a tag can never stand in for a sealed
      // state or the other way round.
      this.#integrityKey = derivedKey(copy, INTEGRITY_LABEL);
      this.#digest = materialDigest(copy);
      copy.fill(0);
      return;
    }
    if (!isResidentParts(material))
      throw new KeyringError(`Key "${id}" must be bytes, or a key its wrapper holds in a token`);
    this.#resident = material.resident;
    const integrity = Buffer.from(material.integrity);
    this.#integrityKey = createSecretKey(integrity);
    integrity.fill(0);
    this.#digest = `token:${Buffer.from(material.digest).toString('hex')}`;
  }

  /**
   * A key that stays in its token: its record-integrity key and fingerprint digest are derived
   * inside the token (32 bytes each), so every instance holding the same token key agrees.
   */
  static async resident(
    id: string,
    resident: KeyWrapper.ResidentKey,
    entry: KeyWrapper.Entry,
  ): Promise<ProtectionKey> {
    const integrity = await resident.derive(INTEGRITY_LABEL);
    const digest = await resident.derive(RESIDENT_DIGEST_LABEL);
    try {
      if (integrity.length < MIN_KEY_BYTES || digest.length < MIN_KEY_BYTES)
        throw new KeyringError(`Key "${id}": its token derived fewer than ${MIN_KEY_BYTES} bytes`);
      return new ProtectionKey(id, { resident, integrity, digest }, entry);
    } finally {
      integrity.fill(0);
    }
  }

  /** The wrapped entry the key came from (safe to share), unset for raw material. */
  get entry(): KeyWrapper.Entry | undefined {
    return this.#entry;
  }

  /** The AES-256-GCM key derived from the material; unset for a token-resident key. */
  get encryptionKey(): KeyObject | undefined {
    return this.#encryptionKey;
  }

  /** The token that seals and opens with this key; unset for a key held in memory. */
  get resident(): KeyWrapper.ResidentKey | undefined {
    return this.#resident;
  }

  /** The HMAC-SHA256 key for records kept outside the process. */
  get integrityKey(): KeyObject {
    return this.#integrityKey;
  }

  /** A one-way digest of the key, for fingerprints. */
  digest(): string {
    return this.#digest;
  }

  /** Whether `other` is the same key (the same material, or the same key in a token). */
  sameKeyAs(other: ProtectionKey): boolean {
    const mine = Buffer.from(this.#digest);
    const theirs = Buffer.from(other.#digest);
    return mine.length === theirs.length && timingSafeEqual(mine, theirs);
  }

  sameMaterial(other: Uint8Array): boolean {
    return this.sameKeyAs(new ProtectionKey(this.id, other));
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

function isResidentParts(value: unknown): value is ResidentParts {
  const parts = value as Partial<ResidentParts> | null;
  return (
    parts !== null &&
    typeof parts === 'object' &&
    typeof parts.resident?.encrypt === 'function' &&
    parts.integrity instanceof Uint8Array &&
    parts.digest instanceof Uint8Array
  );
}
