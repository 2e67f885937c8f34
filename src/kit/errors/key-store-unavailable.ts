import type { ProtocolError } from '@modelcontextprotocol/server';
import { serverBusy } from './server-busy';

/**
 * When a client is told to try again after the token holding the keyring's key failed.
 * @internal
 */
export const KEY_STORE_RETRY_AFTER_MS = 1_000;

/**
 * The -32000 a round gets when its state cannot be sealed or opened because the key's token (an
 * HSM over PKCS#11) did not answer: nothing was consumed and the state stays valid, so the same
 * round may be sent again (docs/errors.md).
 * @internal
 */
export function keyStoreUnavailable(): ProtocolError {
  return serverBusy('Server busy: the key store is unavailable', KEY_STORE_RETRY_AFTER_MS);
}
