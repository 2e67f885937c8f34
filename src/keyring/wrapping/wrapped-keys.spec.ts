import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { InvalidModuleOptionsError } from '../../kit/errors/invalid-module-options.error';
import { AesGcmRequestStateProtector } from '../../request-state/sealing/aes-gcm-request-state.protector';
import { RequestStateProtectionError } from '../../request-state/sealing/request-state-protection.error';
import type { KeyringFleet } from '../fleet/keyring-fleet';
import type { KeyringConfig } from '../keyring-fingerprint';
import { KeyringManager } from '../keyring-manager.service';
import { KeyringError } from '../keyring.error';
import { KeyringRecordIntegrity } from '../record-integrity';
import type { KeyWrapper } from './key-wrapper.interface';

const DATA_KEY = randomBytes(32);
const AD = Buffer.from('binding');

/** An HSM in memory: AES-256-GCM and a keyed KDF with a key the test never hands out. */
class FakeTokenKey implements KeyWrapper.ResidentKey {
  available = true;
  calls = 0;
  constructor(private readonly key: Buffer) {}

  async encrypt(iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array> {
    this.use();
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(aad);
    return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }

  async decrypt(iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Promise<Uint8Array> {
    this.use();
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv).setAAD(aad);
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    try {
      return Buffer.concat([
        decipher.update(sealed.subarray(0, sealed.length - 16)),
        decipher.final(),
      ]);
    } catch {
      throw new RequestStateProtectionError('authentication_failed');
    }
  }

  async derive(label: string): Promise<Uint8Array> {
    this.use();
    return createHmac('sha256', this.key).update(label).digest();
  }

  private use(): void {
    this.calls++;
    if (!this.available) throw new Error('CKR_DEVICE_REMOVED');
  }
}

/** Unwraps `{ test: <base64 of the key XOR 0x5c> }` and hands out `{ token: <label> }` keys. */
class FakeWrapper implements KeyWrapper {
  readonly returned: Uint8Array[] = [];
  constructor(readonly tokens: Record<string, FakeTokenKey> = {}) {}

  async unwrap(keyId: string, entry: KeyWrapper.Entry): Promise<KeyWrapper.Unwrapped> {
    if (entry.token !== undefined) {
      const key = this.tokens[entry.token];
      if (!key) throw new Error(`no key labelled "${entry.token}" in the token`);
      return key;
    }
    if (entry.test === undefined) throw new Error(`cannot unwrap "${Object.keys(entry)[0]}"`);
    const bytes = Buffer.from(entry.test, 'base64').map((byte) => byte ^ 0x5c);
    this.returned.push(bytes);
    return bytes;
  }
}

const wrapped = (key: Buffer) => ({
  test: Buffer.from(key.map((byte) => byte ^ 0x5c)).toString('base64'),
});

async function loaded(config: KeyringConfig, wrapper?: KeyWrapper): Promise<KeyringManager> {
  const keyring = new KeyringManager({ keyring: config });
  await keyring.load(wrapper);
  return keyring;
}

/** A protector whose only key, k1, lives in a (fake) token: the token, to fail it, and the protector. */
async function tokenResidentProtector(): Promise<{
  token: FakeTokenKey;
  protector: AesGcmRequestStateProtector;
}> {
  const token = new FakeTokenKey(randomBytes(32));
  const keyring = await loaded(
    { active: 'k1', keys: { k1: { token: 'k1' } } },
    new FakeWrapper({ k1: token }),
  );
  return { token, protector: new AesGcmRequestStateProtector(keyring) };
}

describe('wrapped keys in the keyring', () => {
  it('unwraps envelope keys at load: the same key as its material, and the unwrapped bytes are zeroed', async () => {
    const wrapper = new FakeWrapper();
    const envelope = await loaded({ active: 'k1', keys: { k1: wrapped(DATA_KEY) } }, wrapper);
    const raw = await loaded({ active: 'k1', keys: { k1: DATA_KEY.toString('base64') } });
    expect(envelope.fingerprint()).toEqual(raw.fingerprint());
    const sealed = new AesGcmRequestStateProtector(raw).seal(Buffer.from('state'), AD) as string;
    expect(
      Buffer.from(
        new AesGcmRequestStateProtector(envelope).open(sealed, AD) as Uint8Array,
      ).toString(),
    ).toBe('state');
    expect(wrapper.returned).toHaveLength(1);
    expect(wrapper.returned[0].every((byte) => byte === 0)).toBe(true);
  });

  it('fails startup naming the key and the reason when an entry cannot be unwrapped, never with material', async () => {
    const wrapper = new FakeWrapper();
    const failing = loaded({ active: 'k1', keys: { k1: { token: 'absent' } } }, wrapper);
    await expect(failing).rejects.toThrow(InvalidModuleOptionsError);
    await expect(failing).rejects.toThrow(
      'Key "k1" could not be unwrapped (token): no key labelled "absent" in the token',
    );
    await expect(loaded({ active: 'k1', keys: { k1: wrapped(DATA_KEY) } })).rejects.toThrow(
      'Key "k1" is wrapped ("test"), but the keyring has no wrapper',
    );
  });

  it('refuses entries that are not one short field with a bounded reference', () => {
    for (const entry of [
      {},
      { a: 'x', b: 'y' },
      { kms: '' },
      { kms: 'x'.repeat(8_193) },
      { 'k-m-s': 'x' },
      { kms: 7 },
    ])
      expect(
        () => new KeyringManager({ keyring: { active: 'k1', keys: { k1: entry as never } } }),
      ).toThrow(/"keyring".*Key "k1" must be material, or one wrapped field/);
  });

  it('seals and opens inside the token with a token-resident key, in the same token format', async () => {
    const { protector } = await tokenResidentProtector();
    const sealed = protector.seal(Buffer.from('state'), AD);
    expect(sealed).toBeInstanceOf(Promise);
    const state = await sealed;
    expect(state).toMatch(/^azE\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(Buffer.from(await protector.open(state, AD)).toString()).toBe('state');
    await expect(protector.open(state, Buffer.from('other'))).rejects.toMatchObject({
      reason: 'authentication_failed',
    });
  });

  it('refuses with the retryable key_unavailable when the token fails, and works again when it is back', async () => {
    const { token, protector } = await tokenResidentProtector();
    const state = await protector.seal(Buffer.from('state'), AD);
    token.available = false;
    await expect(protector.seal(Buffer.from('state'), AD)).rejects.toMatchObject({
      reason: 'key_unavailable',
    });
    await expect(protector.open(state, AD)).rejects.toMatchObject({ reason: 'key_unavailable' });
    token.available = true;
    expect(Buffer.from(await protector.open(state, AD)).toString()).toBe('state');
  });

  it('holds a token-resident key while the token seals, so it cannot be removed meanwhile', async () => {
    const token = new FakeTokenKey(randomBytes(32));
    const keyring = await loaded(
      { active: 'k1', keys: { k1: { token: 'k1' }, k2: randomBytes(32) } },
      new FakeWrapper({ k1: token }),
    );
    const sealing = new AesGcmRequestStateProtector(keyring).seal(Buffer.from('state'), AD);
    keyring.activateStagedKey('k2');
    expect(() => keyring.removeVerificationKey('k1')).toThrow('in use');
    await sealing;
    keyring.removeVerificationKey('k1');
  });

  it('tags records under a token-resident key with a key derived in the token: instances holding the same token key agree', async () => {
    const secret = randomBytes(32);
    const a = await loaded(
      { active: 'k1', keys: { k1: { token: 'k1' } } },
      new FakeWrapper({ k1: new FakeTokenKey(secret) }),
    );
    const b = await loaded(
      { active: 'k1', keys: { k1: { token: 'k1' } } },
      new FakeWrapper({ k1: new FakeTokenKey(secret) }),
    );
    const other = await loaded(
      { active: 'k1', keys: { k1: { token: 'k1' } } },
      new FakeWrapper({ k1: new FakeTokenKey(randomBytes(32)) }),
    );
    const tag = new KeyringRecordIntegrity(a).tag('task', ['t-1']);
    expect(new KeyringRecordIntegrity(b).verify(tag, 'task', ['t-1'])).toBe(true);
    expect(new KeyringRecordIntegrity(other).verify(tag, 'task', ['t-1'])).toBe(false);
    expect(a.fingerprint()).toEqual(b.fingerprint());
    expect(a.fingerprint()).not.toEqual(other.fingerprint());
  });

  it('stages wrapped entries through the wrapper, and the same key twice is a no-op', async () => {
    const keyring = await loaded(
      { active: 'k1', keys: { k1: randomBytes(32) } },
      new FakeWrapper(),
    );
    const snapshot = await keyring.stage('k2', wrapped(DATA_KEY));
    expect(snapshot.keys).toEqual([
      { id: 'k1', role: 'active' },
      { id: 'k2', role: 'verification' },
    ]);
    await keyring.stage('k2', DATA_KEY.toString('base64'));
    await expect(keyring.stage('k2', randomBytes(32))).rejects.toThrow(
      'already exists with different material',
    );
    await expect(keyring.stage('k3', { test: 'AAAA' })).rejects.toThrow(KeyringError);
    expect((await keyring.activate('k2')).activeKeyId).toBe('k2');
    expect((await keyring.remove('k1')).keys).toEqual([{ id: 'k2', role: 'active' }]);
  });

  it('never sends raw material to a fleet: stage refuses it before changing anything', async () => {
    const keyring = await loaded(
      { active: 'k1', keys: { k1: randomBytes(32) } },
      new FakeWrapper(),
    );
    keyring.attachFleet({} as KeyringFleet);
    await expect(keyring.stage('k2', randomBytes(32))).rejects.toThrow(
      'never travels to the fleet',
    );
    expect(keyring.findKey('k2')).toBeUndefined();
  });

  it('closes its wrapper on application shutdown', async () => {
    const close = jest.fn();
    const keyring = await loaded(
      { active: 'k1', keys: { k1: randomBytes(32) } },
      { unwrap: jest.fn(), close },
    );
    await keyring.onApplicationShutdown();
    expect(close).toHaveBeenCalledTimes(1);
  });
});
