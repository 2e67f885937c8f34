import { fromBase64Url, toBase64Url } from './base64url';

describe('base64url', () => {
  it('round-trips every length of bytes without padding', () => {
    for (let length = 0; length < 40; length++) {
      const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 37 + 250) & 0xff));
      const text = toBase64Url(bytes);
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(fromBase64Url(text)).toEqual(bytes);
    }
  });

  it('uses the URL alphabet', () => {
    expect(toBase64Url(Buffer.from([0xfb, 0xff, 0xbf]))).toBe('-_-_');
    expect(fromBase64Url('-_-_')).toEqual(Buffer.from([0xfb, 0xff, 0xbf]));
  });

  it('decodes the empty string to no bytes', () => {
    expect(fromBase64Url('')).toEqual(Buffer.alloc(0));
  });

  it.each([
    ['standard alphabet +', '+/+/'],
    ['padding', 'AA=='],
    ['a single pad', 'AAA='],
    ['whitespace', 'AAAA AAAA'],
    ['a newline', 'AAAA\nAAAA'],
    ['a dot', 'AA.A'],
    ['non-ASCII', 'AAAé'],
    ['percent-encoding', 'AA%3D'],
  ])('rejects %s', (_, text) => {
    expect(fromBase64Url(text)).toBeUndefined();
  });

  it.each(['A', 'AAAAA', 'AAAAAAAAA'])(
    'rejects the impossible length %p (length % 4 == 1)',
    (text) => {
      expect(fromBase64Url(text)).toBeUndefined();
    },
  );

  it('rejects non-canonical trailing bits, so each byte string has one spelling', () => {
    // "AA" is the canonical spelling of one zero byte; "AB".."AP" decode to it too in lenient decoders.
    expect(fromBase64Url('AA')).toEqual(Buffer.from([0]));
    for (const spelling of ['AB', 'AC', 'AP']) expect(fromBase64Url(spelling)).toBeUndefined();
    // Two bytes: the last character carries 2 unused bits.
    expect(fromBase64Url('AAA')).toEqual(Buffer.from([0, 0]));
    for (const spelling of ['AAB', 'AAC', 'AAD']) expect(fromBase64Url(spelling)).toBeUndefined();
  });
});

describe('base64url canonical spelling', () => {
  it('accepts exactly the spellings Node itself produces, for every last character', () => {
    for (const prefix of ['', 'AAAA']) {
      for (const stem of ['A', 'AA']) {
        for (const last of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') {
          const text = `${prefix}${stem}${last}`;
          const canonical = Buffer.from(text, 'base64url').toString('base64url') === text;
          expect(fromBase64Url(text) !== undefined).toBe(canonical);
        }
      }
    }
  });
});
