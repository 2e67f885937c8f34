import { Injectable, Logger } from '@nestjs/common';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KeyringManager } from '../../keyring/keyring-manager.service';
import { fromBase64Url, toBase64Url } from '../../kit/base64url';
import { clip } from '../../kit/clip';
import type { ProtectionKey } from '../../keyring/protection-key';
import { ResidentKeyRejectedError } from '../../keyring/wrapping/resident-key-rejected.error';
import { RequestStateProtectionError } from './request-state-protection.error';
import type { RequestStateProtector } from './request-state-protector.interface';

const IV_BYTES = 12;
/** Unknown key ids explained one by one in the log; past that, once more for all the rest. */
const EXPLAINED_KEY_IDS = 32;
const TAG_BYTES = 16;
/** Key ids remembered by their segment: more than a keyring holds at once through rotations. */
const REMEMBERED_KEY_IDS = 64;

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
 * Seals inside the token of a token-resident key; a token that fails is `key_unavailable`, a
 * retryable refusal, never a crash.
 */
async function residentSeal(
  key: ProtectionKey,
  iv: Buffer,
  aad: Buffer,
  plaintext: Uint8Array,
  header: string,
): Promise<string> {
  try {
    const sealed = await (key.resident as NonNullable<ProtectionKey['resident']>).encrypt(
      iv,
      aad,
      plaintext,
    );
    return `${header}${toBase64Url(Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength))}`;
  } catch {
    throw new RequestStateProtectionError('key_unavailable');
  }
}

/** Opens inside the token; only a tag that fails to verify is `authentication_failed`. */
async function residentOpen(
  key: ProtectionKey,
  iv: Buffer,
  aad: Buffer,
  sealed: Buffer,
): Promise<Uint8Array> {
  try {
    return await (key.resident as NonNullable<ProtectionKey['resident']>).decrypt(iv, aad, sealed);
  } catch (error) {
    if (error instanceof ResidentKeyRejectedError)
      throw new RequestStateProtectionError('authentication_failed');
    if (error instanceof RequestStateProtectionError && error.reason === 'authentication_failed')
      throw error;
    throw new RequestStateProtectionError('key_unavailable');
  }
}

/**
 * The default {@link RequestStateProtector}: AES-256-GCM with a random 96-bit nonce, the key id in
 * the envelope (`<kid>.<nonce>.<ciphertext+tag>`, base64url), keys from the {@link KeyringManager}.
 * Synchronous with keys held in memory; a token-resident key (an HSM's) seals and opens inside its
 * token, asynchronously, in the same format.
 *
 * @publicApi
 */
@Injectable()
export class AesGcmRequestStateProtector implements RequestStateProtector {
  private readonly logger = new Logger('McpKeyring');
  /** Key ids already explained (bounded: they come from clients). */
  private readonly explained = new Set<string>();
  /** Key id by its base64url segment, for keys this instance holds (bounded). */
  private readonly keyIdsBySegment = new Map<string, string>();

  constructor(private readonly keyring: KeyringManager) {}

  seal(plaintext: Uint8Array, associatedData: Uint8Array): string | Promise<string> {
    const { key, release } = this.keyring.reserveActiveKey();
    let releasesLater = false;
    try {
      const iv = randomBytes(IV_BYTES);
      const header = `${toBase64Url(Buffer.from(key.id, 'ascii'))}.${toBase64Url(iv)}.`;
      const aad = additionalData(associatedData, key.id);
      if (key.encryptionKey === undefined) {
        // A token-resident key: the token seals, and the key stays reserved until it has.
        releasesLater = true;
        return residentSeal(key, iv, aad, plaintext, header).finally(release);
      }
      const cipher = createCipheriv('aes-256-gcm', key.encryptionKey, iv);
      cipher.setAAD(aad);
      const ciphertext = Buffer.concat([
        cipher.update(plaintext),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${header}${toBase64Url(ciphertext)}`;
    } finally {
      if (!releasesLater) release();
    }
  }

  open(token: string, associatedData: Uint8Array): Uint8Array | Promise<Uint8Array> {
    // Three segments found by position, not split into an array; each decoded strictly.
    const firstDot = token.indexOf('.');
    const secondDot = firstDot < 0 ? -1 : token.indexOf('.', firstDot + 1);
    if (secondDot < 0 || token.indexOf('.', secondDot + 1) !== -1)
      throw new RequestStateProtectionError('malformed');
    const keyId = this.keyIdOf(token.slice(0, firstDot));
    const iv = fromBase64Url(token.slice(firstDot + 1, secondDot));
    const sealed = fromBase64Url(token.slice(secondDot + 1));
    if (
      keyId === undefined ||
      !iv ||
      !sealed ||
      iv.length !== IV_BYTES ||
      sealed.length < TAG_BYTES
    ) {
      throw new RequestStateProtectionError('malformed');
    }
    const key = this.keyring.findKey(keyId);
    if (!key) {
      this.explainUnknownKey(keyId);
      throw new RequestStateProtectionError('unknown_key');
    }
    if (key.encryptionKey === undefined)
      return residentOpen(key, iv, additionalData(associatedData, keyId), sealed);
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

  /**
   * The key id a segment spells (printable ASCII, canonical base64url), or `undefined`. The
   * segments of the keys this instance holds are remembered, so a round decodes no key id.
   */
  private keyIdOf(segment: string): string | undefined {
    const known = this.keyIdsBySegment.get(segment);
    if (known !== undefined) return known;
    const bytes = fromBase64Url(segment);
    if (!bytes) return undefined;
    // 'latin1', not 'ascii': Node's ascii decoder clears bit 7, so a re-spelled kid would still open.
    const keyId = bytes.toString('latin1');
    if (!/^[\x21-\x7e]+$/.test(keyId)) return undefined;
    // Only ids of keys held here are remembered: clients cannot grow the map.
    if (this.keyring.findKey(keyId) && this.keyIdsBySegment.size < REMEMBERED_KEY_IDS)
      this.keyIdsBySegment.set(segment, keyId);
    return keyId;
  }

  /**
   * Says once per key id why a state sealed under a key this instance lacks is refused: behind a
   * load balancer, instances that do not share a keyring refuse each other's rounds.
   */
  private explainUnknownKey(keyId: string): void {
    if (this.explained.has(keyId) || this.explained.size > EXPLAINED_KEY_IDS) return;
    this.explained.add(keyId);
    const more = this.explained.size > EXPLAINED_KEY_IDS;
    this.logger.warn(
      more
        ? `More request states sealed under key ids this instance does not hold; they are no longer named one by one.`
        : `A request state was sealed under key "${clip(keyId, 64)}", which this instance does not hold. ` +
            'Instances that serve one endpoint must share a keyring (the same keys, rotated with ' +
            `KeyringManager on every instance); this instance's keyring fingerprint is ` +
            `${this.keyring.fingerprint().value}. Compare it with the others'.`,
    );
  }
}
