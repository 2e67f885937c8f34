/**
 * The value a client could have given `target[key]`: an own property, or a member its class
 * declares (a DTO accessor). Never something every object inherits from `Object.prototype`, so a
 * name like `constructor`, `toString` or `__proto__` is `undefined` unless it was really sent.
 * @internal
 */
export function ownValue(target: object, key: string): unknown {
  for (
    let holder: object | null = target;
    holder !== null && holder !== Object.prototype;
    holder = Object.getPrototypeOf(holder) as object | null
  ) {
    if (Object.hasOwn(holder, key)) return (target as Record<string, unknown>)[key];
  }
  return undefined;
}

/** A record without a prototype, so every key (`__proto__` included) is plain data. @internal */
export function nullPrototypeRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * Sets `record[key]` as an own data member, `__proto__` included — as `JSON.parse` makes it, where
 * an assignment would set the object's prototype instead. @internal
 */
export function setOwnValue(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else record[key] = value;
}
