import { LosslessNumber } from 'lossless-json';
import type { JsonBodyLimits } from './json-body-limits';
import { parseJsonBody } from './lossless-json-body';

const LIMITS: JsonBodyLimits = {
  maxBytes: 4 * 1024 * 1024,
  timeoutMs: 10_000,
  maxInFlightBytes: 33_554_432,
  maxDepth: 64,
  maxNumberLength: 1024,
  maxExponent: 10_000,
  maxNodes: 100_000,
  maxObjectKeys: 1_000,
  maxArrayLength: 100_000,
  maxStringLength: 1_048_576,
};

function nested(depth: number, inner = '1'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

describe('parseJsonBody', () => {
  it('keeps every number of the input responses exact, and the message plain', () => {
    const parsed = parseJsonBody(
      '{"jsonrpc":"2.0","id":1,"params":{"arguments":{"amount":3.50},' +
        '"inputResponses":{"pay":{"action":"accept","content":{"amount":3.50,"big":12345678901234567890,"n":-0.0}}}}}',
      LIMITS,
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const content = (
      parsed.exactInputResponses as { pay: { content: Record<string, LosslessNumber> } }
    ).pay.content;
    expect(content.amount.value).toBe('3.50');
    expect(content.big.value).toBe('12345678901234567890');
    expect(content.n.value).toBe('-0.0');
    expect((parsed.plain as { params: { arguments: unknown } }).params.arguments).toEqual({
      amount: 3.5,
    });
  });

  it('does no second parse for a message without input responses', () => {
    const parsed = parseJsonBody('{"id":1,"params":{"arguments":{"a":1.50}}}', LIMITS);
    expect(parsed).toEqual({
      ok: true,
      plain: { id: 1, params: { arguments: { a: 1.5 } } },
      exactInputResponses: undefined,
    });
  });

  it('reads input responses without numbers from the native parse (nothing to keep exact)', () => {
    const parsed = parseJsonBody(
      '{"params":{"arguments":{"n":1.50},"inputResponses":{"ok":{"action":"accept","content":{"sure":true,"who":"1.50"}}}}}',
      LIMITS,
    );
    if (!parsed.ok) throw new Error('expected a parse');
    const plain = parsed.plain as { params: { inputResponses: unknown } };
    expect(parsed.exactInputResponses).toBe(plain.params.inputResponses);
    expect(parsed.exactInputResponses).toEqual({
      ok: { action: 'accept', content: { sure: true, who: '1.50' } },
    });
  });

  it('keeps a "__proto__" key as data in both parses', () => {
    const parsed = parseJsonBody(
      '{"params":{"arguments":{"__proto__":{"x":1}},"inputResponses":{"__proto__":{"action":"accept","content":{"n":1}}}}}',
      LIMITS,
    );
    if (!parsed.ok) throw new Error('expected a parse');
    const args = (parsed.plain as { params: { arguments: object } }).params.arguments;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(Object.keys(parsed.exactInputResponses as object)).toEqual(['__proto__']);
  });

  describe('structure bounds, checked before parsing', () => {
    it.each<[string, string, Partial<JsonBodyLimits>]>([
      ['too_many_nodes', `[${'1,'.repeat(10)}1]`, { maxNodes: 10 }],
      [
        'object_too_large',
        `{${Array.from({ length: 4 }, (_, i) => `"k${i}":1`).join(',')}}`,
        {
          maxObjectKeys: 3,
        },
      ],
      ['array_too_long', '[[1,2,3,4]]', { maxArrayLength: 3 }],
      ['string_too_long', '{"a":"12345"}', { maxStringLength: 4 }],
      ['string_too_long', '{"12345":1}', { maxStringLength: 4 }],
    ])('refuses %s', (reason, text, limits) => {
      expect(parseJsonBody(text, { ...LIMITS, ...limits })).toEqual({ ok: false, reason });
    });

    it('accepts exactly the limits', () => {
      expect(parseJsonBody(`[${'1,'.repeat(8)}1]`, { ...LIMITS, maxNodes: 10 }).ok).toBe(true);
      expect(parseJsonBody('[[1,2,3]]', { ...LIMITS, maxArrayLength: 3 }).ok).toBe(true);
      expect(parseJsonBody('{"a":"1234"}', { ...LIMITS, maxStringLength: 4 }).ok).toBe(true);
      expect(parseJsonBody('{"a":1,"b":2,"c":3}', { ...LIMITS, maxObjectKeys: 3 }).ok).toBe(true);
    });

    it('counts escaped quotes and brackets inside strings as text', () => {
      const text = JSON.stringify({ a: 'say \\"[[[{{{,,,\\"' + ',[]'.repeat(50) });
      expect(
        parseJsonBody(text, { ...LIMITS, maxDepth: 1, maxNodes: 3, maxArrayLength: 1 }).ok,
      ).toBe(true);
    });
  });

  it('gives the same plain form JSON.parse gives', () => {
    const text = '{"a":[1,2.5,-3e2,{"b":null,"c":true,"d":"x"}],"e":1.7976931348623157e308}';
    const parsed = parseJsonBody(text, LIMITS);
    expect(parsed.ok && parsed.plain).toEqual(JSON.parse(text));
  });

  describe('depth', () => {
    it('accepts nesting up to maxDepth and refuses one level more', () => {
      expect(parseJsonBody(nested(64), LIMITS).ok).toBe(true);
      expect(parseJsonBody(nested(65), LIMITS)).toEqual({ ok: false, reason: 'too_deep' });
      expect(parseJsonBody('{"a":{"b":{"c":1}}}', { ...LIMITS, maxDepth: 2 })).toEqual({
        ok: false,
        reason: 'too_deep',
      });
      expect(parseJsonBody('{"a":{"b":1}}', { ...LIMITS, maxDepth: 2 }).ok).toBe(true);
    });

    it('refuses a very deep body without overflowing the stack', () => {
      expect(parseJsonBody(nested(200_000), LIMITS)).toEqual({ ok: false, reason: 'too_deep' });
    });

    it('does not count brackets inside strings, including after escaped quotes', () => {
      const brackets = '[[[[[[[[[[{{{{{{{{{{';
      expect(
        parseJsonBody(JSON.stringify({ text: brackets.repeat(10) }), { ...LIMITS, maxDepth: 1 }).ok,
      ).toBe(true);
      expect(
        parseJsonBody(JSON.stringify({ text: `say \\"${brackets}\\" and \\\\` }), {
          ...LIMITS,
          maxDepth: 1,
        }).ok,
      ).toBe(true);
      expect(parseJsonBody(JSON.stringify([`"${brackets}`]), { ...LIMITS, maxDepth: 1 }).ok).toBe(
        true,
      );
    });

    it('counts sibling containers by depth, not by number', () => {
      expect(
        parseJsonBody(`[${Array.from({ length: 1000 }, () => '[1]').join(',')}]`, {
          ...LIMITS,
          maxDepth: 2,
        }).ok,
      ).toBe(true);
    });
  });

  describe('number bounds', () => {
    it('refuses a number token longer than maxNumberLength, and reports the request id', () => {
      const long = '1'.repeat(1025);
      expect(parseJsonBody(`{"id":7,"params":{"n":${long}}}`, LIMITS)).toEqual({
        ok: false,
        reason: 'number_out_of_bounds',
      });
      expect(parseJsonBody(`{"id":"a","params":{"n":${'1'.repeat(1024)}}}`, LIMITS).ok).toBe(true);
    });

    it('accepts exponent 10000 and refuses 10001, either sign', () => {
      expect(parseJsonBody('[1e10000]', LIMITS).ok).toBe(true);
      expect(parseJsonBody('[1e-10000]', LIMITS).ok).toBe(true);
      expect(parseJsonBody('[1E+10000]', LIMITS).ok).toBe(true);
      expect(parseJsonBody('{"id":"x","v":1e10001}', LIMITS)).toEqual({
        ok: false,
        reason: 'number_out_of_bounds',
      });
      expect(parseJsonBody('[1e-10001]', LIMITS)).toMatchObject({
        ok: false,
        reason: 'number_out_of_bounds',
      });
    });

    it('reads leading zeros of the exponent as the value they spell', () => {
      expect(parseJsonBody('[1e000000000010000]', LIMITS).ok).toBe(true);
      expect(parseJsonBody('[1e0000000000010001]', LIMITS)).toMatchObject({
        ok: false,
        reason: 'number_out_of_bounds',
      });
    });

    it('refuses an exponent with more digits than any limit', () => {
      expect(
        parseJsonBody('[1e99999999999999999999]', {
          ...LIMITS,
          maxExponent: Number.MAX_SAFE_INTEGER,
        }),
      ).toMatchObject({ ok: false, reason: 'number_out_of_bounds' });
    });

    it('follows the configured limits', () => {
      expect(parseJsonBody('[123456]', { ...LIMITS, maxNumberLength: 5 })).toMatchObject({
        reason: 'number_out_of_bounds',
      });
      expect(parseJsonBody('[1e6]', { ...LIMITS, maxExponent: 5 })).toMatchObject({
        reason: 'number_out_of_bounds',
      });
    });
  });

  it.each(['', '{', '{"a":1,}', "{'a':1}", '[1,2', 'NaN', '{"a":01}', 'undefined', '{"a":1} x'])(
    'refuses the unparsable body %p',
    (text) => {
      expect(parseJsonBody(text, LIMITS)).toEqual({ ok: false, reason: 'unparsable' });
    },
  );
});
