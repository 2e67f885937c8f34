import { sameJson } from './same-json';

describe('sameJson', () => {
  it('holds parsed values equal member by member, in any order', () => {
    const same: [string, string][] = [
      ['{"elicitation":{"form":{}},"sampling":{}}', '{"sampling":{},"elicitation":{"form":{}}}'],
      ['[1,"a",null,true,{"b":[2]}]', '[1,"a",null,true,{"b":[2]}]'],
      ['{"__proto__":{"x":1}}', '{"__proto__":{"x":1}}'],
      ['{}', '{}'],
    ];
    for (const [a, b] of same)
      expect([a, b, sameJson(JSON.parse(a), JSON.parse(b))]).toEqual([a, b, true]);
  });

  it('tells apart values that differ anywhere', () => {
    const different: [string, string][] = [
      ['{"elicitation":{"form":{}}}', '{"elicitation":{"url":{}}}'],
      ['{"a":{}}', '{"a":{},"b":{}}'],
      ['{"a":{},"b":{}}', '{"a":{}}'],
      ['{"a":[]}', '{"a":{}}'],
      ['{"a":{}}', '{"a":[]}'],
      ['[1,2]', '[2,1]'],
      ['[1]', '[1,1]'],
      ['{"a":null}', '{"a":{}}'],
      ['{"a":"1"}', '{"a":1}'],
      ['{"__proto__":{"x":1}}', '{"__proto__":{"x":2}}'],
    ];
    for (const [a, b] of different)
      expect([a, b, sameJson(JSON.parse(a), JSON.parse(b))]).toEqual([a, b, false]);
  });

  it('counts values nested past its depth as different', () => {
    const deep = JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) as unknown;
    expect(sameJson(deep, JSON.parse(JSON.stringify(deep)))).toBe(false);
    expect(sameJson(deep, deep)).toBe(true);
  });
});
