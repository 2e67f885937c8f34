/**
 * Turns wrapped keyring entries into keys: a KMS's `Decrypt` of a data key kept only wrapped, an
 * HSM's unwrap, or a handle to a key that never leaves an HSM. Called when the keyring loads and
 * when a key is staged, never per request. Give it as the `keyring.wrapper` option (through
 * `forRootAsync` to inject it), or provide the `KeyWrapper` token in a global module. The module
 * calls `close()` on application shutdown.
 *
 * An entry is one field naming how the key is held and a reference that is safe to store and send
 * (`{ kms: '<base64 CiphertextBlob>' }`, `{ pkcs11: '<key label>' }`). Never put key material in an
 * error message: the keyring logs and returns messages as they are.
 *
 * @example
 * ```ts
 * class GcpKmsKeyWrapper implements KeyWrapper {
 *   async unwrap(keyId: string, entry: KeyWrapper.Entry): Promise<Uint8Array> {
 *     const [result] = await this.kms.decrypt({
 *       name: this.keyName,
 *       ciphertext: Buffer.from(entry.gcpKms, 'base64'),
 *       additionalAuthenticatedData: Buffer.from(`${this.endpoint}\n${keyId}`),
 *     });
 *     return result.plaintext as Uint8Array;
 *   }
 * }
 * ```
 * @publicApi
 */
export interface KeyWrapper {
  /**
   * The key `keyId` of `entry`: its material, or a key that stays in its token. Throw an `Error`
   * whose message says what failed (never the key) for an entry this wrapper cannot unwrap.
   */
  unwrap(keyId: string, entry: KeyWrapper.Entry): Promise<KeyWrapper.Unwrapped>;
  /** Releases sessions and connections on application shutdown. */
  close?(): void | Promise<void>;
}

// A type-only namespace beside the token keeps the port's types under its one public name.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace KeyWrapper {
  /** A wrapped keyring entry: exactly one field, e.g. `{ kms: '<base64 CiphertextBlob>' }`. */
  type Entry = Readonly<Record<string, string>>;

  /**
   * A key that never leaves its token (an HSM's AES-256 key, used by label): the keyring seals
   * and opens request state by asking the token, and derives the record-integrity key and the
   * fingerprint digest through it.
   */
  interface ResidentKey {
    /** AES-256-GCM inside the token: `ciphertext || 16-byte tag`. */
    encrypt(iv: Uint8Array, additionalData: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>;
    /**
     * Opens what `encrypt` made. Rejects with `RequestStateProtectionError('authentication_failed')`
     * when the tag does not verify; any other failure counts as the token being unavailable.
     */
    decrypt(iv: Uint8Array, additionalData: Uint8Array, sealed: Uint8Array): Promise<Uint8Array>;
    /**
     * 32 bytes derived inside the token from the key and `label` (a key-based KDF such as
     * NIST SP 800-108 over AES-CMAC): equal on every instance whose token holds the same key.
     */
    derive(label: string): Promise<Uint8Array>;
  }

  /** Key material (envelope encryption), or a token-resident key. */
  type Unwrapped = Uint8Array | ResidentKey;
}

/** DI token of the {@link KeyWrapper}. @publicApi */
export const KeyWrapper = Symbol('KeyWrapper');
