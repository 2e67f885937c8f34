import { isSessionId, newSessionId } from './session-id';

describe('session ids', () => {
  it('are 192 random bits in 32 base64url characters (visible ASCII, as 2025-11-25 requires)', () => {
    const id = newSessionId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(id, 'base64url')).toHaveLength(24);
    expect(isSessionId(id)).toBe(true);
  });

  it('never repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newSessionId()));
    expect(ids.size).toBe(10_000);
  });

  it('are told apart from anything else a client may send', () => {
    for (const value of [
      undefined,
      42,
      '',
      'short',
      `${newSessionId()}x`,
      newSessionId().slice(1),
      `${newSessionId().slice(1)} `,
      `${newSessionId().slice(1)}=`,
      `${newSessionId().slice(1)}\u00e9`,
    ])
      expect(isSessionId(value)).toBe(false);
  });
});
