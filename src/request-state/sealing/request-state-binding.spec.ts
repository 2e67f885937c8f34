import { LosslessNumber } from 'lossless-json';
import { stableParams } from './request-state-binding';

const BASE = {
  name: 'transfer_funds',
  arguments: { from: 'acc-1', to: 'acc-2', amount: new LosslessNumber('3.50') },
  _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.example/tenant': 'acme' },
};

function digest(params: Record<string, unknown>): string {
  return stableParams(params);
}

describe('stableParams', () => {
  const reference = digest(BASE);

  it('is canonical JSON: keys sorted, numbers by value, no whitespace', () => {
    expect(digest({ _meta: { b: 1, a: 2.0 }, name: 'n', arguments: { z: 10, y: [1.5] } })).toBe(
      '{"_meta":{"a":2e0,"b":1e0},"arguments":{"y":[15e-1],"z":1e1},"name":"n"}',
    );
  });

  it('ignores inputResponses and requestState, which change every round', () => {
    expect(
      digest({
        ...BASE,
        inputResponses: { approval: { action: 'accept', content: { ok: true } } },
        requestState: 'eyJ2IjoxfQ.abc.def.ghi',
      }),
    ).toBe(reference);
  });

  it.each([
    'progressToken',
    'traceparent',
    'tracestate',
    'baggage',
    'io.modelcontextprotocol/logLevel',
  ])('ignores the transient _meta.%s', (key) => {
    expect(digest({ ...BASE, _meta: { ...BASE._meta, [key]: 'round-specific-value' } })).toBe(
      reference,
    );
  });

  it('ignores every transient _meta key at once', () => {
    const meta = {
      ...BASE._meta,
      progressToken: 7,
      traceparent: '00-abc-def-01',
      tracestate: 'x=y',
      baggage: 'k=v',
    };
    expect(digest({ ...BASE, _meta: meta })).toBe(reference);
  });

  it('treats _meta holding only transient keys like no _meta at all', () => {
    const { _meta: _ignored, ...withoutMeta } = BASE;
    expect(digest({ ...withoutMeta, _meta: { progressToken: 'p-1' } })).toBe(digest(withoutMeta));
    expect(digest({ ...withoutMeta, _meta: {} })).toBe(digest(withoutMeta));
  });

  it('does not modify the params it digests', () => {
    const params = { ...BASE, _meta: { ...BASE._meta, progressToken: 1 }, requestState: 'x' };
    const before = JSON.stringify(params);
    digest(params);
    expect(JSON.stringify(params)).toBe(before);
  });

  it('treats missing or null arguments as {}', () => {
    expect(digest({ name: 'ping' })).toBe(digest({ name: 'ping', arguments: {} }));
    expect(digest({ name: 'ping', arguments: null })).toBe(digest({ name: 'ping', arguments: {} }));
  });

  it('does not depend on key order', () => {
    expect(
      digest({
        _meta: BASE._meta,
        arguments: { amount: BASE.arguments.amount, to: 'acc-2', from: 'acc-1' },
        name: BASE.name,
      }),
    ).toBe(reference);
  });

  it('gives the same digest for different spellings of the same number', () => {
    for (const spelling of ['3.5', '35e-1', '3.500', '0.35E1']) {
      expect(
        digest({ ...BASE, arguments: { ...BASE.arguments, amount: new LosslessNumber(spelling) } }),
      ).toBe(reference);
    }
    expect(digest({ name: 'n', arguments: { count: new LosslessNumber('1') } })).toBe(
      digest({ name: 'n', arguments: { count: new LosslessNumber('1.0') } }),
    );
    expect(digest({ name: 'n', arguments: { count: 1 } })).toBe(
      digest({ name: 'n', arguments: { count: new LosslessNumber('1.0') } }),
    );
  });

  it.each([
    ['an argument value', { arguments: { ...BASE.arguments, to: 'acc-3' } }],
    [
      'an argument amount',
      { arguments: { ...BASE.arguments, amount: new LosslessNumber('3.51') } },
    ],
    ['an added argument', { arguments: { ...BASE.arguments, memo: 'hi' } }],
    ['a removed argument', { arguments: { from: 'acc-1', to: 'acc-2' } }],
    ['a string instead of a number', { arguments: { ...BASE.arguments, amount: '3.50' } }],
    ['the name', { name: 'transfer_funds_v2' }],
    ['the resource uri', { uri: 'file:///other' }],
    ['other _meta', { _meta: { ...BASE._meta, 'io.example/tenant': 'other' } }],
    ['an added _meta key', { _meta: { ...BASE._meta, custom: 1 } }],
    [
      'the protocol version in _meta',
      { _meta: { ...BASE._meta, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
    ],
    ['an unknown top-level member', { task: { ttl: 1000 } }],
  ])('changes when %s changes', (_, change) => {
    expect(digest({ ...BASE, ...change })).not.toBe(reference);
  });
});
