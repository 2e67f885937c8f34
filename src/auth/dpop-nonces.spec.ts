import { randomBytes } from 'node:crypto';
import { DpopNonces } from './dpop-nonces';

describe('DpopNonces', () => {
  const key = randomBytes(32);
  let now = 1_900_000_000_000;
  const nonces = (withKey = key) => new DpopNonces(withKey, 300, () => now);

  it('issues one nonce per window that every instance with the key accepts', () => {
    const a = nonces();
    const b = nonces();
    expect(a.current()).toBe(b.current());
    expect(b.accepts(a.current())).toBe(true);
  });

  it('accepts the previous and the next window, not older or newer ones', () => {
    const issued = nonces().current();
    now += 300_000;
    expect(nonces().accepts(issued)).toBe(true);
    expect(nonces().current()).not.toBe(issued);
    now += 300_000;
    expect(nonces().accepts(issued)).toBe(false);
    const ahead = nonces().current();
    now -= 300_000;
    expect(nonces().accepts(ahead)).toBe(true);
    now -= 300_000;
    expect(nonces().accepts(ahead)).toBe(false);
  });

  it('refuses a nonce made with another key, edited, or not a nonce at all', () => {
    const foreign = nonces(randomBytes(32)).current();
    expect(nonces().accepts(foreign)).toBe(false);
    const issued = nonces().current();
    const edited = `${issued.slice(0, -2)}${issued.endsWith('AA') ? 'AB' : 'AA'}`;
    expect(nonces().accepts(edited)).toBe(false);
    for (const value of [undefined, 42, '', 'x'.repeat(32), issued + 'x'])
      expect(nonces().accepts(value)).toBe(false);
  });
});
