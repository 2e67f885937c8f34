import { KeyringManager } from './keyring-manager.service';
import { KeyringRecordIntegrity } from './record-integrity';

const K1 = Buffer.alloc(32, 1);
const K2 = Buffer.alloc(32, 2);

function integrityOf(keyring: KeyringManager): KeyringRecordIntegrity {
  return new KeyringRecordIntegrity(keyring);
}

describe('KeyringRecordIntegrity', () => {
  const keyring = () => new KeyringManager({ keyring: { active: 'k1', keys: { k1: K1 } } });

  it('verifies what it tagged, and nothing changed', () => {
    const integrity = integrityOf(keyring());
    const tag = integrity.tag('task', ['key', '3', '{"a":1}']);
    expect(tag).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(integrity.verify(tag, 'task', ['key', '3', '{"a":1}'])).toBe(true);
    expect(integrity.verify(tag, 'task', ['key', '3', '{"a":2}'])).toBe(false);
    expect(integrity.verify(tag, 'task', ['key', '4', '{"a":1}'])).toBe(false);
    expect(integrity.verify(tag, 'handle', ['key', '3', '{"a":1}'])).toBe(false);
  });

  it('binds each part to its place: moving bytes between parts breaks the tag', () => {
    const integrity = integrityOf(keyring());
    const tag = integrity.tag('x', ['ab', 'c']);
    expect(integrity.verify(tag, 'x', ['a', 'bc'])).toBe(false);
    expect(integrity.verify(tag, 'x', ['abc'])).toBe(false);
    expect(integrity.verify(tag, 'x', ['ab', 'c', ''])).toBe(false);
  });

  it('keeps verifying across a rotation, and stops once the key is removed', () => {
    const ring = keyring();
    const integrity = integrityOf(ring);
    const old = integrity.tag('x', ['a']);
    ring.rotateActiveKey('k2', K2);
    const fresh = integrity.tag('x', ['a']);
    expect(fresh).not.toBe(old);
    expect(integrity.verify(old, 'x', ['a'])).toBe(true);
    expect(integrity.verify(fresh, 'x', ['a'])).toBe(true);
    ring.removeVerificationKey('k1');
    expect(integrity.verify(old, 'x', ['a'])).toBe(false);
  });

  it('refuses tags of another keyring and anything malformed, without throwing', () => {
    const mine = integrityOf(keyring());
    const theirs = integrityOf(new KeyringManager({ keyring: { active: 'k1', keys: { k1: K2 } } }));
    expect(mine.verify(theirs.tag('x', ['a']), 'x', ['a'])).toBe(false);
    for (const bad of [undefined, 42, '', '.', 'azE.', 'azE.!!', `azE.${'A'.repeat(300)}`])
      expect(mine.verify(bad, 'x', ['a'])).toBe(false);
  });
});
