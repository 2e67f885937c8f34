import { LosslessNumber } from 'lossless-json';
import type { JsonBodyLimits } from './json-body-limits';
import { parseJsonBody, toPlainJson } from './lossless-json-body';

const LIMITS: JsonBodyLimits = {
  maxBytes: 4 * 1024 * 1024,
  maxDepth: 64,
  maxNumberLength: 1024,
  maxExponent: 10_000,
};

function nested(depth: number, inner = '1'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

describe('parseJsonBody', () => {
  it('keeps every number exact in the lossless form and plain in the plain form', () => {
    const parsed = parseJsonBody(
      '{"jsonrpc":"2.0","id":1,"params":{"amount":3.50,"big":12345678901234567890,"n":-0.0}}',
      LIMITS,
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const lossless = parsed.lossless as {
      id: LosslessNumber;
      params: Record<string, LosslessNumber>;
    };
    expect(lossless.id).toBeInstanceOf(LosslessNumber);
    expect(lossless.params.amount.value).toBe('3.50');
    expect(lossless.params.big.value).toBe('12345678901234567890');
    expect(lossless.params.n.value).toBe('-0.0');
    expect(parsed.plain).toEqual({
      jsonrpc: '2.0',
      id: 1,
      params: { amount: 3.5, big: Number('12345678901234567890'), n: -0 },
    });
    expect(typeof (parsed.plain as { id: unknown }).id).toBe('number');
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
        id: 7,
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
        id: 'x',
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

    it('reports a null id when the body has none or is not an object', () => {
      expect(parseJsonBody('[1e10001]', LIMITS)).toEqual({
        ok: false,
        reason: 'number_out_of_bounds',
        id: undefined,
      });
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

describe('toPlainJson', () => {
  it('replaces LosslessNumbers at any depth and leaves the rest alone', () => {
    const value = {
      a: [new LosslessNumber('1.50'), 'x', null, { b: new LosslessNumber('2') }],
      c: true,
    };
    expect(toPlainJson(value)).toEqual({ a: [1.5, 'x', null, { b: 2 }], c: true });
  });
});
