import { LosslessNumber } from 'lossless-json';
import { canonicalJson, canonicalNumber } from './canonical-json';

describe('canonicalNumber', () => {
  it.each([
    ['1', '1.0'],
    ['1', '10e-1'],
    ['1', '1.000'],
    ['1', '0.1e1'],
    ['100', '1E+2'],
    ['100', '1e2'],
    ['100', '100.00'],
    ['0', '-0'],
    ['0', '0.0'],
    ['0', '0e5'],
    ['3.5', '3.50'],
    ['3.5', '35e-1'],
    ['-2.5', '-25e-1'],
    ['0.001', '1e-3'],
  ])('spells %s and %s the same way', (a, b) => {
    expect(canonicalNumber(a)).toBe(canonicalNumber(b));
  });

  it.each([
    ['1', '10'],
    ['1', '-1'],
    ['3.5', '3.05'],
    ['100', '1e3'],
    ['0.1', '0.01'],
    ['12345678901234567890', '12345678901234567891'],
    ['0.1', '0.10000000000000001'],
  ])('keeps %s and %s apart', (a, b) => {
    expect(canonicalNumber(a)).not.toBe(canonicalNumber(b));
  });

  it('uses a mantissa without trailing zeros and a decimal exponent', () => {
    expect(canonicalNumber('1')).toBe('1e0');
    expect(canonicalNumber('100')).toBe('1e2');
    expect(canonicalNumber('3.50')).toBe('35e-1');
    expect(canonicalNumber('-0.0250')).toBe('-25e-3');
    expect(canonicalNumber('-0')).toBe('0');
  });

  it('does not lose digits that a double would', () => {
    expect(canonicalNumber('9007199254740993')).toBe('9007199254740993e0');
  });

  it.each(['', 'abc', '1.', '.5', '+1', '1e', '0x10', 'NaN', 'Infinity', '1 ', ' 1', '--1'])(
    'rejects the non-JSON number %p',
    (text) => {
      expect(() => canonicalNumber(text)).toThrow(TypeError);
    },
  );
});

describe('canonicalJson', () => {
  it('sorts object keys at every level and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[true,null]},"b":1e0}',
    );
  });

  it('gives the same text whatever the insertion order', () => {
    expect(canonicalJson({ z: 1, y: 2, x: { q: 1, p: 2 } })).toBe(
      canonicalJson({ x: { p: 2, q: 1 }, y: 2, z: 1 }),
    );
  });

  it('sorts keys by UTF-16 code unit, not by locale', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, é: 4, _: 5 })).toBe(
      '{"B":2e0,"_":5e0,"a":3e0,"b":1e0,"é":4e0}',
    );
  });

  it.each([0, 1, 2, 5, 16, 17, 40])(
    'orders %i keys in any insertion order as the code-unit sort does',
    (count) => {
      const keys = Array.from(
        { length: count },
        (_, index) =>
          // Never integer-like: objects list those first, whatever the insertion order.
          ['k', 'K', '_', '\u00e9', '\ud83d\ude00', ''][index % 6].repeat(1 + (index % 4)) +
          `#${index}`,
      );
      const shuffled = [...keys].reverse();
      shuffled.push(...shuffled.splice(0, Math.floor(count / 3)));
      const record = Object.fromEntries(shuffled.map((key) => [key, 1]));
      const ordered = Object.keys(JSON.parse(canonicalJson(record)) as object);
      expect(ordered).toEqual([...keys].sort());
    },
  );

  it('keeps array order', () => {
    expect(canonicalJson([3, 1, 2])).not.toBe(canonicalJson([1, 2, 3]));
  });

  it('treats a LosslessNumber and a JavaScript number of equal value alike', () => {
    expect(canonicalJson({ amount: new LosslessNumber('3.50') })).toBe(
      canonicalJson({ amount: 3.5 }),
    );
    expect(canonicalJson([new LosslessNumber('1.0'), new LosslessNumber('1E+2')])).toBe(
      canonicalJson([1, 100]),
    );
  });

  it('keeps a LosslessNumber exact where a double would round', () => {
    expect(canonicalJson(new LosslessNumber('9007199254740993'))).not.toBe(
      canonicalJson(new LosslessNumber('9007199254740992')),
    );
  });

  it('encodes JavaScript numbers in exponent notation and -0 as 0', () => {
    expect(canonicalJson(1e21)).toBe('1e21');
    expect(canonicalJson(1.5e-7)).toBe('15e-8');
    expect(canonicalJson(-0)).toBe('0');
  });

  it('escapes strings and keys as JSON does', () => {
    expect(canonicalJson({ 'a"b': 'line\nbreak' })).toBe('{"a\\"b":"line\\nbreak"}');
  });

  it('omits undefined members like JSON.stringify', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it.each([NaN, Infinity, -Infinity])('refuses the non-finite number %p', (value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
    expect(() => canonicalJson(BigInt(1))).toThrow(TypeError);
  });
});
