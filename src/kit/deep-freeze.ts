/** A plain JSON object: `{}`-made, or prototype-less as parsers make them so `__proto__` stays a key. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A frozen deep copy of a JSON-like value. @internal */
export function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  if (isJsonObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      // defineProperty: a "__proto__" key stays data instead of replacing the prototype.
      Object.defineProperty(copy, key, {
        value: frozenCopy(member),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return Object.freeze(copy) as T;
  }
  return value;
}
