import { Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KeyringManager } from '../keyring/keyring-manager.service';
import { fromBase64Url, toBase64Url } from '../util/base64url';
import { RequestStateProtectionError } from './request-state-protection.error';
import type { RequestStateProtector } from './request-state-protector.interface';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `associatedData`, a zero byte, then the key id (printable ASCII), in one buffer. */
function additionalData(associatedData: Uint8Array, keyId: string): Buffer {
  // The key id travels in clear, so it is authenticated along with the caller's associated data.
  const data = Buffer.allocUnsafe(associatedData.length + 1 + keyId.length);
  data.set(associatedData);
  data[associatedData.length] = 0;
  data.write(keyId, associatedData.length + 1, 'latin1');
  return data;
}

/**
 * The default {@link RequestStateProtector}: AES-256-GCM with a random 96-bit nonce, the key id in
 * the envelope (`<kid>.<nonce>.<ciphertext+tag>`, base64url), keys from the {@link KeyringManager}.
 *
 * @publicApi
 */
@Injectable()
export class AesGcmRequestStateProtector implements RequestStateProtector {
  constructor(private readonly keyring: KeyringManager) {}

  seal(plaintext: Uint8Array, associatedData: Uint8Array): string {
    const { key, release } = this.keyring.reserveActiveKey();
    try {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key.encryptionKey, iv);
      cipher.setAAD(additionalData(associatedData, key.id));
      const ciphertext = Buffer.concat([
        cipher.update(plaintext),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${toBase64Url(Buffer.from(key.id, 'ascii'))}.${toBase64Url(iv)}.${toBase64Url(ciphertext)}`;
    } finally {
      release();
    }
  }

  open(token: string, associatedData: Uint8Array): Uint8Array {
    const parts = token.split('.');
    if (parts.length !== 3) throw new RequestStateProtectionError('malformed');
    const [kidBytes, iv, sealed] = parts.map(fromBase64Url);
    if (!kidBytes || !iv || !sealed || iv.length !== IV_BYTES || sealed.length < TAG_BYTES) {
      throw new RequestStateProtectionError('malformed');
    }
    // 'latin1', not 'ascii': Node's ascii decoder clears bit 7, so a re-spelled kid would still open.
    const keyId = kidBytes.toString('latin1');
    if (!/^[\x21-\x7e]+$/.test(keyId)) throw new RequestStateProtectionError('malformed');
    const key = this.keyring.findKey(keyId);
    if (!key) throw new RequestStateProtectionError('unknown_key');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.encryptionKey, iv);
      decipher.setAAD(additionalData(associatedData, keyId));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plaintext = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
      // GCM produces no output on final(); it only checks the tag.
      decipher.final();
      return plaintext;
    } catch {
      throw new RequestStateProtectionError('authentication_failed');
    }
  }
}
