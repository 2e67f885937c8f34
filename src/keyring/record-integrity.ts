import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { fromBase64Url, toBase64Url } from '../kit/base64url';
import { KeyringManager } from './keyring-manager.service';

/**
 * Authenticates what the module keeps outside the process (task and handle records, queued steps,
 * control messages in Redis) under the keyring: an HMAC-SHA256 tag with a key derived from a
 * keyring key (HKDF, a label of its own), naming the key it was made with. New tags use the active
 * key; any key the keyring holds verifies, so rotation works as it does for sealed state. A tag
 * covers a domain (what kind of record) and every part, each length-prefixed, so no part can be
 * moved into another.
 * @internal
 */
export interface RecordIntegrity {
  /** `<key id, base64url>.<HMAC, base64url>`: URL-safe, no spaces. */
  tag(domain: string, parts: readonly string[]): string;
  /** Whether `tag` is one this keyring made for exactly these parts. Never throws. */
  verify(tag: unknown, domain: string, parts: readonly string[]): boolean;
}

const MAC_BYTES = 32;

/** The {@link RecordIntegrity} of the module's keyring. @internal */
@Injectable()
export class KeyringRecordIntegrity implements RecordIntegrity {
  constructor(private readonly keyring: KeyringManager) {}

  /**
   * Makes sure the keyring has a key to tag with (an ephemeral one, loudly, when none is
   * configured outside production): called at startup by whatever will tag records.
   */
  ensureKey(): void {
    this.keyring.ensureActiveKey();
  }

  tag(domain: string, parts: readonly string[]): string {
    const { key, release } = this.keyring.reserveActiveKey();
    try {
      return `${toBase64Url(Buffer.from(key.id, 'latin1'))}.${mac(key.integrityKey, domain, parts).toString('base64url')}`;
    } finally {
      release();
    }
  }

  verify(tag: unknown, domain: string, parts: readonly string[]): boolean {
    if (typeof tag !== 'string' || tag.length > 256) return false;
    const dot = tag.indexOf('.');
    if (dot <= 0) return false;
    const keyId = fromBase64Url(tag.slice(0, dot))?.toString('latin1');
    const given = fromBase64Url(tag.slice(dot + 1));
    if (keyId === undefined || given === undefined || given.length !== MAC_BYTES) return false;
    const key = this.keyring.findKey(keyId);
    if (!key) return false;
    return timingSafeEqual(given, mac(key.integrityKey, domain, parts));
  }
}

function mac(
  key: Parameters<typeof createHmac>[1],
  domain: string,
  parts: readonly string[],
): Buffer {
  const hmac = createHmac('sha256', key).update(`nestjs-mcp record v1\n${domain}\n`);
  for (const part of parts) hmac.update(`${Buffer.byteLength(part)}:`).update(part);
  return hmac.digest();
}
