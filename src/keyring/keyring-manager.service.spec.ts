import { Logger } from '@nestjs/common';
import { inspect } from 'node:util';
import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';
import { KeyInUseError } from './key-in-use.error';
import type { KeyMaterial } from './keyring-fingerprint';
import { KeyringError } from './keyring.error';
import { KeyringManager } from './keyring-manager.service';
import { ProtectionKey } from './protection-key';
import { thrownBy } from '../kit/thrown.spec-helper';

const K1 = Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1));
const K2 = Buffer.from(Array.from({ length: 32 }, (_, i) => 200 - i));

function manager(keys: Record<string, KeyMaterial> = { k1: K1 }, active = 'k1'): KeyringManager {
  return new KeyringManager({ keyring: { active, keys } });
}

/** Every spelling of the key bytes a leak could use. */
function spellings(key: Buffer): string[] {
  return [
    key.toString('hex'),
    key.toString('base64'),
    key.toString('base64url'),
    key.toString('hex').toUpperCase(),
  ];
}

/** The snapshot names `active` as the active key, then `verification` as the verification keys. */
function expectKeys(keyring: KeyringManager, active: string, ...verification: string[]): void {
  expect(keyring.snapshot().activeKeyId).toBe(active);
  expect(keyring.snapshot().keys).toEqual([
    { id: active, role: 'active' },
    ...verification.map((id) => ({ id, role: 'verification' })),
  ]);
}

describe('KeyringManager', () => {
  beforeAll(() => {
    // The ephemeral-key warning is expected in these tests.
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterAll(() => {
    jest.restoreAllMocks();
  });

  describe('construction', () => {
    it('reports the configured active key and the others as verification keys, sorted', () => {
      const snapshot = manager({ zeta: K2, k1: K1, alpha: K2 }, 'k1').snapshot();
      expect(snapshot.activeKeyId).toBe('k1');
      expect(snapshot.ephemeral).toBe(false);
      expect(snapshot.keys).toEqual([
        { id: 'k1', role: 'active' },
        { id: 'alpha', role: 'verification' },
        { id: 'zeta', role: 'verification' },
      ]);
    });

    it('holds no key until the module asks for one: a custom protector never gets an ephemeral key', () => {
      const snapshot = new KeyringManager({ keyring: undefined }).snapshot();
      expect(snapshot).toMatchObject({ activeKeyId: undefined, keys: [], ephemeral: false });
    });

    it('generates an ephemeral active key when the default protector needs one', () => {
      const keyring = new KeyringManager({ keyring: undefined });
      keyring.ensureActiveKey();
      const snapshot = keyring.snapshot();
      expect(snapshot.ephemeral).toBe(true);
      expect(snapshot.activeKeyId).toMatch(/^ephemeral-[0-9a-f]{12}$/);
      expect(snapshot.keys).toEqual([{ id: snapshot.activeKeyId, role: 'active' }]);
    });

    it('stops calling itself ephemeral once a configured key is active', () => {
      const keyring = new KeyringManager({ keyring: undefined });
      keyring.ensureActiveKey();
      keyring.rotateActiveKey('k1', new Uint8Array(32).fill(7));
      expect(keyring.snapshot()).toMatchObject({ activeKeyId: 'k1', ephemeral: false });
    });

    it('gives two ephemeral keyrings different keys', () => {
      const a = new KeyringManager({ keyring: undefined });
      const b = new KeyringManager({ keyring: undefined });
      a.ensureActiveKey();
      b.ensureActiveKey();
      expect(a.fingerprint().value).not.toBe(b.fingerprint().value);
    });

    it('refuses an active key that is not configured, as an invalid "keyring" option', () => {
      expect(() => manager({ k1: K1 }, 'k2')).toThrow(InvalidModuleOptionsError);
      expect(() => manager({ k1: K1 }, 'k2')).toThrow(/"keyring".*k2/);
    });

    it('refuses short material, bad ids and non-base64 text as an invalid "keyring" option', () => {
      for (const keys of [
        { k1: Buffer.alloc(31) },
        { 'bad id': K1 },
        { k1: 'not base64!' },
      ] as Record<string, KeyMaterial>[]) {
        let thrown: unknown;
        try {
          manager(keys, Object.keys(keys)[0]);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(InvalidModuleOptionsError);
        expect((thrown as InvalidModuleOptionsError).option).toBe('keyring');
      }
    });

    it('accepts base64 and base64url text material', () => {
      const fromBytes = manager({ k1: K1 }).fingerprint();
      expect(manager({ k1: K1.toString('base64') }).fingerprint()).toEqual(fromBytes);
      expect(manager({ k1: K1.toString('base64url') }).fingerprint()).toEqual(fromBytes);
    });

    it('counts the bytes of base64 text, not its characters, towards the 32-byte minimum', () => {
      const text = Buffer.alloc(31, 1).toString('base64'); // 44 characters, 31 bytes
      expect(text.length).toBeGreaterThanOrEqual(32);
      expect(() => manager({ k1: text })).toThrow(InvalidModuleOptionsError);
    });
  });

  describe('key ids and material', () => {
    it.each([
      ['empty', ''],
      ['65 characters', 'a'.repeat(65)],
      ['a space', 'key one'],
      ['non-ASCII', 'schlüssel'],
      ['a slash', 'a/b'],
      ['a colon', 'a:b'],
      ['a quote', 'a"b'],
      ['a newline', 'a\nb'],
    ])('refuses a key id with %s', (_, id) => {
      expect(() => manager().stageVerificationKey(id, K2)).toThrow(KeyringError);
      expect(() => new ProtectionKey(id, K2)).toThrow(KeyringError);
    });

    it('accepts 64 token characters, including every allowed punctuation mark', () => {
      const punctuation = "!#$%&'*+-.^_`|~";
      const id = `${punctuation}${'Az09'.repeat(20)}`.slice(0, 64);
      expect(id).toHaveLength(64);
      const keyring = manager();
      keyring.stageVerificationKey(id, K2);
      keyring.stageVerificationKey('a', K2);
      expect(keyring.snapshot().keys.map((key) => key.id)).toEqual(
        expect.arrayContaining([id, 'a']),
      );
    });

    it.each([0, 1, 16, 31])('refuses %i bytes of material', (length) => {
      expect(() => manager().stageVerificationKey('k2', Buffer.alloc(length, 7))).toThrow(
        KeyringError,
      );
    });

    it('accepts more than 32 bytes of material', () => {
      expect(() => manager().stageVerificationKey('k2', Buffer.alloc(64, 7))).not.toThrow();
    });

    it('refuses material that is neither bytes nor base64 text', () => {
      expect(() => manager().stageVerificationKey('k2', 42 as unknown as KeyMaterial)).toThrow(
        KeyringError,
      );
      expect(() => manager().stageVerificationKey('k2', 'has spaces in it' as KeyMaterial)).toThrow(
        KeyringError,
      );
    });

    it('names the key id but not the bytes in errors', () => {
      try {
        manager().stageVerificationKey('k1', K2);
        throw new Error('expected a KeyringError');
      } catch (error) {
        expect(error).toBeInstanceOf(KeyringError);
        const message = (error as Error).message;
        expect(message).toContain('"k1"');
        for (const spelling of [...spellings(K1), ...spellings(K2)])
          expect(message).not.toContain(spelling);
      }
    });
  });

  describe('staging, activating, removing', () => {
    it('stageVerificationKey is idempotent for identical bytes, whatever their spelling', () => {
      const keyring = manager();
      keyring.stageVerificationKey('k2', K2);
      const before = keyring.fingerprint();
      expect(() => keyring.stageVerificationKey('k2', Buffer.from(K2))).not.toThrow();
      expect(() => keyring.stageVerificationKey('k2', K2.toString('base64'))).not.toThrow();
      expect(() => keyring.stageVerificationKey('k1', K1)).not.toThrow();
      expect(keyring.fingerprint()).toEqual(before);
    });

    it('stageVerificationKey refuses different bytes under an existing id', () => {
      const keyring = manager();
      keyring.stageVerificationKey('k2', K2);
      const changed = Buffer.from(K2);
      changed[31] ^= 1;
      expect(() => keyring.stageVerificationKey('k2', changed)).toThrow(KeyringError);
      expect(() => keyring.stageVerificationKey('k1', K2)).toThrow(KeyringError);
    });

    it('stageVerificationKey does not change the active key', () => {
      const keyring = manager();
      keyring.stageVerificationKey('k2', K2);
      expectKeys(keyring, 'k1', 'k2');
    });

    it('activateStagedKey refuses a key that is not staged', () => {
      expect(() => manager().activateStagedKey('k2')).toThrow(KeyringError);
    });

    it('rotateActiveKey stages and activates, and is safe to retry', () => {
      const keyring = manager();
      keyring.rotateActiveKey('k2', K2);
      keyring.rotateActiveKey('k2', K2);
      expectKeys(keyring, 'k2', 'k1');
    });

    it('removeVerificationKey refuses the active key with a KeyringError (not KeyInUseError)', () => {
      const keyring = manager();
      const thrown = thrownBy(() => keyring.removeVerificationKey('k1'), KeyringError);
      expect(thrown).not.toBeInstanceOf(KeyInUseError);
      expect(keyring.findKey('k1')).toBeDefined();
    });

    it('removeVerificationKey refuses an unknown key', () => {
      expect(() => manager().removeVerificationKey('nope')).toThrow(KeyringError);
    });

    it('removeVerificationKey refuses a key reserved by an in-flight seal (KeyInUseError), and allows it after release', () => {
      const keyring = manager();
      const first = keyring.reserveActiveKey();
      const second = keyring.reserveActiveKey();
      expect(first.key.id).toBe('k1');
      keyring.rotateActiveKey('k2', K2);
      expect(() => keyring.removeVerificationKey('k1')).toThrow(KeyInUseError);
      first.release();
      first.release(); // releasing twice must not free the second reservation
      expect(thrownBy(() => keyring.removeVerificationKey('k1'), KeyInUseError).keyId).toBe('k1');
      second.release();
      keyring.removeVerificationKey('k1');
      expect(keyring.findKey('k1')).toBeUndefined();
      expect(keyring.snapshot().keys).toEqual([{ id: 'k2', role: 'active' }]);
    });

    it('removing a verification key lets the same id be staged again with new bytes', () => {
      const keyring = manager();
      keyring.stageVerificationKey('k2', K2);
      keyring.removeVerificationKey('k2');
      expect(() => keyring.stageVerificationKey('k2', K1)).not.toThrow();
    });
  });

  describe('fingerprint', () => {
    it('is equal for two managers with identical keys and active key, whatever the insertion order', () => {
      const a = manager({ k1: K1, k2: K2 }, 'k1');
      const b = manager({ k2: Buffer.from(K2), k1: Buffer.from(K1) }, 'k1');
      expect(a.fingerprint()).toEqual(b.fingerprint());
      expect(a.fingerprint()).toEqual({
        version: 2,
        profile: 'nestjs-mcp-aes-256-gcm-v1',
        value: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    });

    it('is equal after staging the same key on two servers', () => {
      const a = manager();
      const b = manager();
      a.stageVerificationKey('k2', K2);
      b.stageVerificationKey('k2', K2.toString('base64'));
      expect(a.fingerprint()).toEqual(b.fingerprint());
    });

    it('differs when any single byte of any key differs', () => {
      const reference = manager({ k1: K1, k2: K2 }).fingerprint().value;
      for (const index of [0, 15, 31]) {
        const changed = Buffer.from(K2);
        changed[index] ^= 0x80;
        expect(manager({ k1: K1, k2: changed }).fingerprint().value).not.toBe(reference);
      }
    });

    it('differs when the active key differs', () => {
      expect(manager({ k1: K1, k2: K2 }, 'k1').fingerprint().value).not.toBe(
        manager({ k1: K1, k2: K2 }, 'k2').fingerprint().value,
      );
    });

    it('differs when one server has an extra key', () => {
      const extra = manager();
      extra.stageVerificationKey('k2', K2);
      expect(extra.fingerprint().value).not.toBe(manager().fingerprint().value);
    });

    it('differs when the same bytes sit under another id', () => {
      expect(manager({ k1: K1 }, 'k1').fingerprint().value).not.toBe(
        manager({ kx: K1 }, 'kx').fingerprint().value,
      );
    });

    it('differs when a key has an extra trailing zero byte (HMAC key padding must not hide it)', () => {
      const reference = manager({ k1: K1 }).fingerprint().value;
      expect(manager({ k1: Buffer.concat([K1, Buffer.from([0])]) }).fingerprint().value).not.toBe(
        reference,
      );
      expect(manager({ k1: Buffer.concat([K1, Buffer.alloc(32)]) }).fingerprint().value).not.toBe(
        reference,
      );
      // Keys longer than a SHA-256 block are hashed by HMAC: the long key and its hash must not collide either.
      const { createHash } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
      const long = Buffer.alloc(65, 9);
      expect(manager({ k1: long }).fingerprint().value).not.toBe(
        manager({ k1: createHash('sha256').update(long).digest() }).fingerprint().value,
      );
    });

    it('follows staging, activation and removal', () => {
      const keyring = manager();
      const seen = new Set([keyring.fingerprint().value]);
      keyring.stageVerificationKey('k2', K2);
      seen.add(keyring.fingerprint().value);
      keyring.activateStagedKey('k2');
      seen.add(keyring.fingerprint().value);
      keyring.removeVerificationKey('k1');
      seen.add(keyring.fingerprint().value);
      expect(seen.size).toBe(4);
    });
  });

  describe('no key material leaks', () => {
    it('snapshot, fingerprint and util.inspect of the manager contain no spelling of any key', () => {
      const keyring = manager({ k1: K1, k2: K2 });
      const texts = [
        JSON.stringify(keyring.snapshot()),
        JSON.stringify(keyring.fingerprint()),
        inspect(keyring, { depth: 10, showHidden: true }),
      ];
      for (const text of texts) {
        for (const spelling of [...spellings(K1), ...spellings(K2)])
          expect(text).not.toContain(spelling);
      }
    });

    it('the fingerprint value is not a plain hash of the key bytes', () => {
      const { createHash } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
      const value = manager().fingerprint().value;
      expect(value).not.toBe(createHash('sha256').update(K1).digest('hex'));
    });

    it('ProtectionKey prints as a redaction through toString, template strings, JSON and inspect', () => {
      const key = new ProtectionKey('k1', K1);
      const redaction = '[ProtectionKey: redacted]';
      expect(String(key)).toBe(redaction);
      expect(`${key}`).toBe(redaction);
      expect(JSON.stringify({ key })).toBe(JSON.stringify({ key: redaction }));
      expect(inspect(key)).toBe(redaction);
      expect(inspect({ nested: { key } }, { depth: 5 })).toContain(redaction);
      expect(Object.keys(key)).toEqual(['id']);
      const everything = [
        String(key),
        JSON.stringify(key),
        inspect(key, { showHidden: true, depth: 10 }),
      ].join(' ');
      for (const spelling of spellings(K1)) expect(everything).not.toContain(spelling);
    });

    it('the encryption key is derived, not the raw material', () => {
      const key = new ProtectionKey('k1', K1);
      expect(key.encryptionKey?.symmetricKeySize).toBe(32);
      expect(key.encryptionKey?.export().equals(K1)).toBe(false);
    });
  });
});
