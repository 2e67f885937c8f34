import { port } from '../../options/port';
/**
 * Seals and opens framework-protected request state. The default is AES-256-GCM over the
 * {@link KeyringManager}'s keys; provide your own (a KMS or HSM) as the `protector` module option.
 *
 * Both methods must authenticate `associatedData` exactly: a state sealed with other associated data
 * must never open. Failures throw {@link RequestStateProtectionError} with a bounded reason and no
 * secret material or attacker-supplied text.
 *
 * @publicApi
 */
export interface RequestStateProtector {
  /** Encrypts and authenticates `plaintext`; returns a URL-safe token (`[A-Za-z0-9_.~-]`). */
  seal(plaintext: Uint8Array, associatedData: Uint8Array): string | Promise<string>;
  /** Verifies and decrypts a token produced by `seal` with the same associated data. */
  open(token: string, associatedData: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/** DI token of the active {@link RequestStateProtector}. @publicApi */
export const RequestStateProtector = Symbol('RequestStateProtector');

/** The RequestStateProtector port: the `protector` option, or a provider of the token. @internal */
export const REQUEST_STATE_PROTECTOR_PORT = port<RequestStateProtector>(
  RequestStateProtector,
  'requestState.protector',
);
