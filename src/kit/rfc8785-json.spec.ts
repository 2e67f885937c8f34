import { createHash } from 'node:crypto';
import { LosslessNumber } from 'lossless-json';
import { rfc8785Json, sortMemberNames } from './rfc8785-json';

/** The double whose IEEE 754 bits are `hex`, as RFC 8785 Appendix B lists them. */
function double(hex: string): number {
  return Buffer.from(hex, 'hex').readDoubleBE(0);
}

describe('rfc8785Json (the JSON Canonicalization Scheme)', () => {
  it('serializes the numbers of RFC 8785 Appendix B as the RFC does', () => {
    const table: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [bits, expected] of table)
      expect([bits, rfc8785Json(double(bits))]).toEqual([bits, expected]);
  });

  it('refuses NaN and the infinities (Appendix B: errors)', () => {
    expect(() => rfc8785Json(double('7fffffffffffffff'))).toThrow(TypeError);
    expect(() => rfc8785Json(double('7ff0000000000000'))).toThrow(TypeError);
    expect(() => rfc8785Json(-Infinity)).toThrow(TypeError);
  });

  it('canonicalizes the example of RFC 8785 section 3.2.2 byte for byte', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(rfc8785Json(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units, as RFC 8785 section 3.2.3 does', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // Read the order from the text: JSON.parse would put the integer-like "1" first again.
    const order = [...rfc8785Json(input).matchAll(/"([^"]*)":"/g)].map((match) => match[1]);
    expect(order).toEqual(['\\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33']);
  });

  it('reproduces the two-extension known-answer digest of SEP-3004', () => {
    const record = {
      event_id: '99999999-9999-9999-9999-999999999999',
      event_type: 'tool_call',
      occurred_at: '2026-06-06T12:00:00.000Z',
      outcome: 'deferred',
      previous_hash: null,
      principal_id: 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa',
      tool_name: 'export',
      extensions: {
        'runtime-security': {
          severity: 'high',
          quarantine_decision: 'quarantine',
          policy_id: 'example.org/runtime-drift@3',
          evidence_hash: 'sha256:b2c547e2c8f17eafc72ef5c2d4d7b6b4d0f7437ab52bae573a9af14ff5e2d9be',
          drift_status: 'confirmed',
        },
        'caller-governance': {
          session_id: '55555555-5555-5555-5555-555555555555',
          purpose_declared: 'reconcile June invoices',
          invoked_by_principal_id: null,
          flagged: false,
        },
      },
    };
    const digest = createHash('sha256').update(rfc8785Json(record)).digest('hex');
    expect(digest).toBe('f733fed9cc757165f810b778e4baba1f51a45504988e937707aaab4361b2f064');
  });

  it('leaves out undefined members, honours toJSON, reads lossless numbers as doubles', () => {
    expect(rfc8785Json({ b: undefined, a: new Date(0), n: new LosslessNumber('4.50') })).toBe(
      '{"a":"1970-01-01T00:00:00.000Z","n":4.5}',
    );
    expect(() => rfc8785Json({ big: 1n })).toThrow(TypeError);
  });

  it('writes nested values, in order or not, as a member-by-member canonicalization does', () => {
    // The reference: every object's members sorted by UTF-16 code units, value by value.
    const reference = (value: unknown): string => {
      if (Array.isArray(value))
        return `[${value.map((item) => reference(item ?? null)).join(',')}]`;
      if (value === null || typeof value !== 'object') return JSON.stringify(value);
      const members = Object.entries(value as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1));
      return `{${members.map(([key, member]) => `${JSON.stringify(key)}:${reference(member)}`).join(',')}}`;
    };
    const values: unknown[] = [
      { a: 1, b: { c: [1, { e: 2, d: 1 }, undefined], a: 'x' }, c: null },
      { a: 1, b: { a: 'x', c: [1, { d: 1, e: 2 }] }, c: null },
      [{ z: { y: { x: [{ b: 2, a: 1 }] } } }, { a: [[], {}] }, 'é\u2028'],
      { '10': 'ten', '9': 'nine', a: { '1': [{ '0': 0, '-': 1 }] }, ' ': true },
      { z: -0, y: 1e21, x: 5e-324, w: 'tab\t' },
    ];
    for (const value of values) expect(rfc8785Json(value)).toBe(reference(value));
    // Unordered at every level: written in time linear in its size, whatever the depth.
    let deep: unknown = { b: 1, a: 2 };
    for (let level = 0; level < 60; level++) deep = { z: deep, y: level };
    expect(rfc8785Json(deep)).toBe(reference(deep));
  });

  it('refuses a value nested deeper than a record ever is', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 100; level++) deep = [deep];
    expect(() => rfc8785Json(deep)).toThrow('nests too deeply');
  });
  it('sorts member names in place as RFC 8785 orders them', () => {
    const names = [
      'z',
      'a',
      '10',
      '9',
      '\u20ac',
      '\ud83d\ude00',
      '\ufb33',
      'A',
      ' ',
      'call_id',
      'call',
    ];
    for (let shift = 0; shift < names.length; shift++) {
      const shifted = [...names.slice(shift), ...names.slice(0, shift)];
      expect(sortMemberNames([...shifted])).toEqual([...shifted].sort());
    }
  });
  it('keeps a `__proto__` member as the ordinary member a parsed body has, in order or not', () => {
    const cases: [string, string][] = [
      ['{"b":1,"__proto__":{"y":1,"x":2}}', '{"__proto__":{"x":2,"y":1},"b":1}'],
      ['{"__proto__":{"y":1,"x":2}}', '{"__proto__":{"x":2,"y":1}}'],
      ['{"b":1,"__proto__":2}', '{"__proto__":2,"b":1}'],
      ['{"__proto__":[{"b":1,"a":2}],"z":0}', '{"__proto__":[{"a":2,"b":1}],"z":0}'],
    ];
    for (const [text, canonical] of cases) expect(rfc8785Json(JSON.parse(text))).toBe(canonical);
  });
});
