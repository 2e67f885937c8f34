/**
 * Signs an audit trail's checkpoints with an asymmetric key held like the keyring's keys: in
 * memory for development ({@link PemAuditSigner}), in a PKCS#11 token (`Pkcs11AuditSigner`) or in
 * AWS KMS (`AwsKmsAuditSigner`). A verifier needs only {@link publicKeyPem}. Give it as the
 * `audit.signer` option, or provide the `AuditSigner` token in a global module.
 *
 * @example
 * ```ts
 * class VaultTransitSigner implements AuditSigner {
 *   readonly algorithm = 'ES256';
 *   async publicKeyPem() { return this.vault.publicKey('audit'); }
 *   async sign(data: Uint8Array) { return this.vault.sign('audit', data); } // r||s, 64 bytes
 * }
 * ```
 * @publicApi
 */
export interface AuditSigner {
  /** `ES256`: ECDSA P-256 with SHA-256, signatures as `r || s` (64 bytes); `EdDSA`: Ed25519. */
  readonly algorithm: 'ES256' | 'EdDSA';
  /** The public key as an SPKI PEM (`-----BEGIN PUBLIC KEY-----`): what a verifier pins. */
  publicKeyPem(): Promise<string>;
  /** Signs `data` (the signer hashes it: SHA-256 for ES256). */
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** Releases sessions and connections on application shutdown. */
  close?(): void | Promise<void>;
}

/** DI token of the {@link AuditSigner}. @publicApi */
export const AuditSigner = Symbol('AuditSigner');
