import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';
import { KeyringError } from './keyring.error';

const KEY_ID = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/;
const MIN_KEY_BYTES = 32;
const REDACTED = '[ProtectionKey: redacted]';

/**
 * A named key. The material is copied on the way in, never printed (`toString`, `inspect` and JSON
 * all show a redaction), and only used to derive the AES-256 key, the record-integrity key and a
 * fingerprint digest.
 *
 * @internal
 */
export class ProtectionKey {
  readonly #material: Buffer;
  readonly #encryptionKey: KeyObject;
  readonly #integrityKey: KeyObject;

  constructor(
    readonly id: string,
    material: Uint8Array,
  ) {
    if (typeof id !== 'string' || !KEY_ID.test(id)) {
      throw new KeyringError("Key ids are 1-64 characters of letters, digits and !#$%&'*+-.^_`|~");
    }
    if (!(material instanceof Uint8Array) || material.length < MIN_KEY_BYTES) {
      throw new KeyringError(
        `Key "${id}" needs at least ${MIN_KEY_BYTES} bytes of material from a secure random source`,
      );
    }
    this.#material = Buffer.from(material);
    // A KeyObject is imported once, instead of on every cipher creation.
    this.#encryptionKey = createSecretKey(
      Buffer.from(
        hkdfSync(
          'sha256',
          this.#material,
          Buffer.alloc(0),
          'nestjs-mcp request-state aes-256-gcm v1',
          32,
        ),
      ),
    );
    // A key of its own for authenticating records (HKDF with another label), so a tag can never
    // stand in for a sealed state or the other way round.
    this.#integrityKey = createSecretKey(
      Buffer.from(
        hkdfSync(
          'sha256',
          this.#material,
          Buffer.alloc(0),
          'nestjs-mcp record integrity hmac-sha256 v1',
          32,
        ),
      ),
    );
  }

  /** The AES-256-GCM key derived from the material. */
  get encryptionKey(): KeyObject {
    return this.#encryptionKey;
  }

  /** The HMAC-SHA256 key derived from the material, for records kept outside the process. */
  get integrityKey(): KeyObject {
    return this.#integrityKey;
  }

  /** A one-way digest of the exact material, for fingerprints. */
  digest(): string {
    // HMAC zero-pads short keys, so K and K||0x00 would digest alike without the length.
    return createHmac('sha256', this.#material)
      .update(`nestjs-mcp keyring fingerprint v2\n${this.#material.length}`)
      .digest('hex');
  }

  sameMaterial(other: Uint8Array): boolean {
    return this.#material.equals(Buffer.from(other));
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
