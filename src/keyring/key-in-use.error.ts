import { KeyringError } from './keyring.error';

/**
 * Thrown by `removeVerificationKey` while a sealing in progress still holds the key.
 * Wait for in-flight requests to finish and retry.
 *
 * @publicApi
 */
export class KeyInUseError extends KeyringError {
  constructor(readonly keyId: string) {
    super(
      `Key "${keyId}" is in use by a request state being sealed; retry after in-flight requests finish`,
    );
  }
}
