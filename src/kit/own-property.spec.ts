import { nullPrototypeRecord, ownValue } from './own-property';

const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype'];

describe('ownValue', () => {
  it.each(PROTOTYPE_NAMES)('finds nothing under "%s" in an object that lacks it', (name) => {
    expect(ownValue({}, name)).toBeUndefined();
    expect(ownValue(nullPrototypeRecord(), name)).toBeUndefined();
  });

  it.each(PROTOTYPE_NAMES)('finds "%s" when it is an own property', (name) => {
    const target = Object.fromEntries([[name, 'sent']]) as object;
    expect(ownValue(target, name)).toBe('sent');
  });

  it('finds own and class-declared members, as a DTO instance has them', () => {
    class Dto {
      title = 'own';
      get upper(): string {
        return this.title.toUpperCase();
      }
    }
    class Child extends Dto {}
    const dto = new Child();
    expect(ownValue(dto, 'title')).toBe('own');
    expect(ownValue(dto, 'upper')).toBe('OWN');
    expect(ownValue(dto, 'toString')).toBeUndefined();
    expect(ownValue(dto, 'missing')).toBeUndefined();
  });

  it('reads arrays by index and length, not by inherited names', () => {
    expect(ownValue(['a'], '0')).toBe('a');
    expect(ownValue(['a'], 'length')).toBe(1);
    expect(ownValue(['a'], 'valueOf')).toBeUndefined();
  });
});

describe('nullPrototypeRecord', () => {
  it('keeps "__proto__" as a key', () => {
    const record = nullPrototypeRecord<number>();
    record['__proto__'] = 1;
    expect(Object.keys(record)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(record)).toBeNull();
  });
});
