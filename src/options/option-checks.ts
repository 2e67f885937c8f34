import { InvalidModuleOptionsError } from '../kit/errors/invalid-module-options.error';

/**
 * `value`, or `fallback` when it is not set; anything but a positive safe integer fails startup.
 * @internal
 */
export function positiveInteger(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new InvalidModuleOptionsError(option, `must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/**
 * The positive integer options named in `fallbacks`, read from `given`: each one's value, or its
 * fallback when it is not set; anything but a positive safe integer fails startup naming
 * `prefix.name` (checked in the order of `fallbacks`).
 * @internal
 */
export function positiveIntegers<K extends string>(
  prefix: string,
  given: NoInfer<Partial<Record<K, unknown>>> | undefined,
  fallbacks: Readonly<Record<K, number>>,
): Record<K, number> {
  const resolved = {} as Record<K, number>;
  for (const name of Object.keys(fallbacks) as K[])
    resolved[name] = positiveInteger(`${prefix}.${name}`, given?.[name], fallbacks[name]);
  return resolved;
}

/** The default of an integer option and the range it accepts. @internal */
export interface IntegerBounds {
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
}

/**
 * A reader of the integer options `bounds` describes, in `given`: an option's value, or its
 * fallback when it is not set; anything but a safe integer within its range fails startup naming
 * `prefix.name` and the range.
 * @internal
 */
export function integersWithin<K extends string>(
  prefix: string,
  given: NoInfer<Partial<Record<K, unknown>>> | undefined,
  bounds: Readonly<Record<K, IntegerBounds>>,
): (name: K) => number {
  return (name) => {
    const { fallback, min, max } = bounds[name];
    const value = given?.[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidModuleOptionsError(
        `${prefix}.${name}`,
        `must be an integer from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}, got ${String(value)}`,
      );
    }
    return value;
  };
}

/**
 * `value`, or `fallback` when it is not set; anything but an integer ≥ 0 fails startup.
 * @internal
 */
export function nonNegativeInteger(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidModuleOptionsError(option, 'must be an integer >= 0');
  }
  return value;
}

/** `value`, or `fallback` when it is not set; anything but a boolean fails startup. @internal */
export function booleanOption(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new InvalidModuleOptionsError(option, 'must be a boolean');
  return value;
}

/** A list of non-empty strings; `[]` when it is not set. @internal */
export function stringList(option: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    value.some((entry) => typeof entry !== 'string' || entry.trim() === '')
  ) {
    throw new InvalidModuleOptionsError(option, 'must be an array of non-empty strings');
  }
  return value as string[];
}

/** An object option, or `undefined` when it is not set. @internal */
export function objectOption<T extends object>(
  option: string,
  value: T | undefined,
): T | undefined {
  if (value !== undefined && (value === null || typeof value !== 'object'))
    throw new InvalidModuleOptionsError(option, 'must be an object');
  return value;
}

/**
 * `value` when it is unset or has every method in `methods` (an object an app plugs in, such as a
 * store or a protector); startup fails naming the option and the methods otherwise.
 * @internal
 */
export function implementing<T>(
  option: string,
  value: T | undefined,
  methods: readonly string[],
  separator = ' and ',
): T | undefined {
  if (value === undefined) return undefined;
  const missing = methods.find(
    (method) =>
      typeof (value as unknown as Record<string, unknown> | null)?.[method] !== 'function',
  );
  if (missing)
    throw new InvalidModuleOptionsError(
      option,
      `must implement ${methods.map((method) => `${method}()`).join(separator)}`,
    );
  return value;
}
