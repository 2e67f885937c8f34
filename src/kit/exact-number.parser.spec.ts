import { LosslessNumber } from 'lossless-json';
import { parseWithExactNumbers, parseWithMarkedNumbers } from './exact-number.parser';

// The runtime's own parse reads each number's source text where JSON.parse offers it (Node ≥ 21)
// and is the marked parse elsewhere: both must read every text alike.
describe.each([
  ['parseWithExactNumbers', parseWithExactNumbers],
  ['parseWithMarkedNumbers', parseWithMarkedNumbers],
])('%s', (_name, parse) => {
  it('keeps every number as its exact text, at any depth, and everything else as JSON.parse does', () => {
    const parsed = parse(
      '{"a":3.50,"b":[1e3,-0.0,12345678901234567890],"c":{"d":"3.50","e":true,"f":null}}',
    ) as { a: LosslessNumber; b: LosslessNumber[]; c: unknown };
    expect(parsed.a).toBeInstanceOf(LosslessNumber);
    expect(parsed.a.value).toBe('3.50');
    expect(parsed.b.map((number) => number.value)).toEqual(['1e3', '-0.0', '12345678901234567890']);
    expect(parsed.c).toEqual({ d: '3.50', e: true, f: null });
  });

  it('leaves digits inside strings and keys alone, escaped quotes included', () => {
    const text = JSON.stringify({ '12': 'x "3.5" \\ 7', n: 'a\\"1' });
    expect(parse(text)).toEqual(JSON.parse(text));
  });

  it('cannot be fooled by a string that imitates its marker', () => {
    const parsed = parse('{"s":"\\u0001abc:1","n":2}') as Record<string, unknown>;
    expect(parsed.s).toBe('\u0001abc:1');
    expect((parsed.n as LosslessNumber).value).toBe('2');
  });

  it('keeps a "__proto__" key as data', () => {
    const parsed = parse('{"__proto__":{"x":1}}') as object;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });

  it.each(['{', '[1,', '{"a":01}', '{"a":1,}', 'x'])('throws on malformed JSON %p', (text) => {
    expect(() => parse(text)).toThrow();
  });
});
