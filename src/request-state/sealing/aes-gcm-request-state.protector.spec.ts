import { KeyringManager } from '../../keyring/keyring-manager.service';
import { AesGcmRequestStateProtector } from './aes-gcm-request-state.protector';
import {
  RequestStateProtectionError,
  type RequestStateFailureReason,
} from './request-state-protection.error';

const K1 = Buffer.alloc(32, 0x11);
const K2 = Buffer.alloc(32, 0x22);
const AD = Buffer.from('{"binding":"tools/call transfer"}');
const PLAINTEXT = Buffer.from('{"step":1,"amount":"3.50"}');

function keyring(keys: Record<string, Buffer> = { k1: K1 }, active = 'k1'): KeyringManager {
  return new KeyringManager({ keyring: { active, keys } });
}

function failureOf(action: () => unknown): RequestStateFailureReason {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestStateProtectionError);
    return (error as RequestStateProtectionError).reason;
  }
  throw new Error('expected the action to throw');
}

/** The protector over keys held in memory, which seals and opens synchronously. */
class MemoryKeyProtector extends AesGcmRequestStateProtector {
  override seal(plaintext: Uint8Array, associatedData: Uint8Array): string {
    const token = super.seal(plaintext, associatedData);
    if (typeof token !== 'string') throw new Error('a memory key sealed asynchronously');
    return token;
  }

  override open(token: string, associatedData: Uint8Array): Uint8Array {
    const plaintext = super.open(token, associatedData);
    if (!(plaintext instanceof Uint8Array)) throw new Error('a memory key opened asynchronously');
    return plaintext;
  }
}

function text(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('utf8');
}

describe('AesGcmRequestStateProtector', () => {
  let manager: KeyringManager;
  let protector: MemoryKeyProtector;

  beforeEach(() => {
    manager = keyring();
    protector = new MemoryKeyProtector(manager);
  });

  it('opens what it sealed with the same associated data', () => {
    const token = protector.seal(PLAINTEXT, AD);
    expect(text(protector.open(token, AD))).toBe(text(PLAINTEXT));
  });

  it('produces a URL-safe <kid>.<nonce>.<ciphertext> token that does not contain the plaintext', () => {
    const token = protector.seal(PLAINTEXT, AD);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token.split('.')[0], 'base64url').toString('ascii')).toBe('k1');
    expect(token).not.toContain(PLAINTEXT.toString('base64url'));
  });

  it('uses a fresh nonce for every seal', () => {
    const tokens = new Set(Array.from({ length: 20 }, () => protector.seal(PLAINTEXT, AD)));
    expect(tokens.size).toBe(20);
  });

  it('seals and opens an empty plaintext', () => {
    expect(protector.open(protector.seal(Buffer.alloc(0), AD), AD)).toHaveLength(0);
  });

  it('refuses a token with different associated data (authentication_failed)', () => {
    const token = protector.seal(PLAINTEXT, AD);
    expect(
      failureOf(() => protector.open(token, Buffer.from('{"binding":"tools/call other"}'))),
    ).toBe('authentication_failed');
    expect(failureOf(() => protector.open(token, Buffer.alloc(0)))).toBe('authentication_failed');
  });

  it('does not let associated data bleed into the key id (AD + kid are length-delimited)', () => {
    // Sealed under kid "k1" with AD "x": an attacker cannot re-label it by moving bytes between them.
    const two = keyring({ k1: K1, '1': K1 }, 'k1');
    const sealer = new MemoryKeyProtector(two);
    const token = sealer.seal(PLAINTEXT, Buffer.from('x'));
    const relabelled = `${Buffer.from('1').toString('base64url')}.${token.split('.').slice(1).join('.')}`;
    expect(failureOf(() => sealer.open(relabelled, Buffer.from('x\u0000k')))).toBe(
      'authentication_failed',
    );
  });

  it('refuses a token sealed under another key with the same id (authentication_failed)', () => {
    const other = new MemoryKeyProtector(keyring({ k1: K2 }));
    expect(failureOf(() => protector.open(other.seal(PLAINTEXT, AD), AD))).toBe(
      'authentication_failed',
    );
  });

  it('refuses a token whose key id is not in the keyring (unknown_key)', () => {
    const other = new MemoryKeyProtector(keyring({ k9: K1 }, 'k9'));
    expect(failureOf(() => protector.open(other.seal(PLAINTEXT, AD), AD))).toBe('unknown_key');
  });

  it('refuses a token whose key id was re-spelled with high bits set (a non-ASCII id never opens)', () => {
    // "k1" with bit 7 set on every byte: Node's 'ascii' decoding would strip those bits back to "k1".
    const [, nonce, sealed] = protector.seal(PLAINTEXT, AD).split('.');
    const highBits = Buffer.from([0x6b | 0x80, 0x31 | 0x80]).toString('base64url');
    expect(failureOf(() => protector.open(`${highBits}.${nonce}.${sealed}`, AD))).toBe('malformed');
    const controlChar = Buffer.from('k\u00001', 'latin1').toString('base64url');
    expect(failureOf(() => protector.open(`${controlChar}.${nonce}.${sealed}`, AD))).toBe(
      'malformed',
    );
  });

  it.each([
    ['an empty token', () => ''],
    ['two parts', (t: string) => t.split('.').slice(0, 2).join('.')],
    ['four parts', (t: string) => `${t}.AAAA`],
    ['an empty key id', (t: string) => `.${t.split('.').slice(1).join('.')}`],
    [
      'a short nonce',
      (t: string) => {
        const [k, , c] = t.split('.');
        return `${k}.${Buffer.alloc(8).toString('base64url')}.${c}`;
      },
    ],
    [
      'a long nonce',
      (t: string) => {
        const [k, , c] = t.split('.');
        return `${k}.${Buffer.alloc(16).toString('base64url')}.${c}`;
      },
    ],
    [
      'a ciphertext shorter than the tag',
      (t: string) => {
        const [k, n] = t.split('.');
        return `${k}.${n}.${Buffer.alloc(15).toString('base64url')}`;
      },
    ],
    ['padding', (t: string) => `${t}=`],
    [
      'standard base64 characters',
      (t: string) => t.replace(/[-_]/g, '+').replace(/^[A-Za-z0-9]/, '+'),
    ],
    ['whitespace', (t: string) => ` ${t}`],
  ])('refuses %s as malformed', (_, edit) => {
    const token = protector.seal(PLAINTEXT, AD);
    expect(failureOf(() => protector.open(edit(token), AD))).toBe('malformed');
  });

  it('refuses a re-spelled key id after its canonical spelling opened (malformed)', () => {
    const token = protector.seal(PLAINTEXT, AD);
    expect(text(protector.open(token, AD))).toBe(text(PLAINTEXT));
    const [, nonce, sealed] = token.split('.');
    // "azE" is k1; "azF" decodes to the same bytes with non-zero unused bits.
    expect(failureOf(() => protector.open(`azF.${nonce}.${sealed}`, AD))).toBe('malformed');
    expect(failureOf(() => protector.open(`azE.${nonce}.${sealed}.`, AD))).toBe('malformed');
  });

  it('refuses a tampered ciphertext or tag (authentication_failed)', () => {
    const [kid, nonce, sealed] = protector.seal(PLAINTEXT, AD).split('.');
    const bytes = Buffer.from(sealed, 'base64url');
    for (const index of [0, bytes.length - 1]) {
      const copy = Buffer.from(bytes);
      copy[index] ^= 0x01;
      expect(
        failureOf(() => protector.open(`${kid}.${nonce}.${copy.toString('base64url')}`, AD)),
      ).toBe('authentication_failed');
    }
    const otherNonce = Buffer.from(nonce, 'base64url');
    otherNonce[0] ^= 0x01;
    expect(
      failureOf(() => protector.open(`${kid}.${otherNonce.toString('base64url')}.${sealed}`, AD)),
    ).toBe('authentication_failed');
  });

  it('never puts key material or plaintext in the error message', () => {
    const token = protector.seal(PLAINTEXT, AD);
    try {
      protector.open(token, Buffer.from('other'));
      throw new Error('expected a failure');
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toBe('Request state rejected: authentication_failed');
      expect(message).not.toContain(K1.toString('hex'));
    }
  });

  describe('key rotation', () => {
    it('keeps opening k1 state after staging and activating k2, seals new state under k2', () => {
      const fromK1 = protector.seal(PLAINTEXT, AD);
      manager.stageVerificationKey('k2', K2);
      expect(text(protector.open(fromK1, AD))).toBe(text(PLAINTEXT));
      // Staged keys verify but do not seal yet.
      expect(Buffer.from(protector.seal(PLAINTEXT, AD).split('.')[0], 'base64url').toString()).toBe(
        'k1',
      );
      manager.activateStagedKey('k2');
      const fromK2 = protector.seal(PLAINTEXT, AD);
      expect(Buffer.from(fromK2.split('.')[0], 'base64url').toString()).toBe('k2');
      expect(text(protector.open(fromK1, AD))).toBe(text(PLAINTEXT));
      expect(text(protector.open(fromK2, AD))).toBe(text(PLAINTEXT));
    });

    it('stops opening k1 state (unknown_key) once k1 is removed, while k2 state still opens', () => {
      const fromK1 = protector.seal(PLAINTEXT, AD);
      manager.rotateActiveKey('k2', K2);
      const fromK2 = protector.seal(PLAINTEXT, AD);
      manager.removeVerificationKey('k1');
      expect(failureOf(() => protector.open(fromK1, AD))).toBe('unknown_key');
      expect(text(protector.open(fromK2, AD))).toBe(text(PLAINTEXT));
    });

    it('stops opening k1 state once k1 is removed, though k1 state was opened before', () => {
      const fromK1 = protector.seal(PLAINTEXT, AD);
      expect(text(protector.open(fromK1, AD))).toBe(text(PLAINTEXT));
      manager.rotateActiveKey('k2', K2);
      manager.removeVerificationKey('k1');
      expect(failureOf(() => protector.open(fromK1, AD))).toBe('unknown_key');
    });

    it('opens state sealed by another server holding the same keyring', () => {
      const other = new MemoryKeyProtector(keyring({ k1: K1 }));
      expect(text(protector.open(other.seal(PLAINTEXT, AD), AD))).toBe(text(PLAINTEXT));
    });

    it('accepts base64 key material equal to the raw bytes', () => {
      const fromText = new MemoryKeyProtector(
        new KeyringManager({ keyring: { active: 'k1', keys: { k1: K1.toString('base64') } } }),
      );
      expect(text(protector.open(fromText.seal(PLAINTEXT, AD), AD))).toBe(text(PLAINTEXT));
    });

    it('releases the reservation after sealing, so a rotated-out key can be removed', () => {
      protector.seal(PLAINTEXT, AD);
      manager.rotateActiveKey('k2', K2);
      expect(() => manager.removeVerificationKey('k1')).not.toThrow();
    });
  });

  it('copies key material on the way in: mutating the caller buffer afterwards changes nothing', () => {
    const material = Buffer.from(K1);
    const own = new KeyringManager({ keyring: { active: 'k1', keys: { k1: material } } });
    const ownProtector = new MemoryKeyProtector(own);
    const before = ownProtector.seal(PLAINTEXT, AD);
    const fingerprint = own.fingerprint();
    material.fill(0);
    expect(text(ownProtector.open(before, AD))).toBe(text(PLAINTEXT));
    // New state is still sealed with the original key: a keyring built from the original bytes opens it.
    expect(text(protector.open(ownProtector.seal(PLAINTEXT, AD), AD))).toBe(text(PLAINTEXT));
    expect(own.fingerprint()).toEqual(fingerprint);
  });

  it('copies staged key material too', () => {
    const material = Buffer.from(K2);
    manager.rotateActiveKey('k2', material);
    const sealed = protector.seal(PLAINTEXT, AD);
    material.fill(0xff);
    const reference = new MemoryKeyProtector(keyring({ k2: K2 }, 'k2'));
    expect(text(reference.open(sealed, AD))).toBe(text(PLAINTEXT));
  });
});
