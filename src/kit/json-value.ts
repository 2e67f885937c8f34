import type { LosslessNumber } from 'lossless-json';

/**
 * A JSON value as this module hands it to applications: numbers that would lose precision as a
 * JavaScript number (and every number in input responses) are `LosslessNumber`s, whose `.value`
 * is the exact text (`3.50` stays `3.50`).
 *
 * @publicApi
 */
export type McpJsonValue =
  | string
  | number
  | boolean
  | null
  | LosslessNumber
  | McpJsonValue[]
  | { [key: string]: McpJsonValue };

/**
 * `T` when every value in it is JSON (what {@link McpJsonValue} allows), else a type `T` cannot
 * meet. Unlike `McpJsonValue`'s index signature it accepts interfaces and plain classes, so
 * `frameworkState<MyState>(state)` type-checks for `interface MyState { step: number }`.
 *
 * @publicApi
 */
export type McpJsonCompatible<T> = T extends string | number | boolean | null | LosslessNumber
  ? T
  : T extends readonly (infer Item)[]
    ? readonly McpJsonCompatible<Item>[]
    : T extends (...args: never[]) => unknown
      ? never
      : T extends object
        ? { [Key in keyof T]: McpJsonCompatible<T[Key]> }
        : never;
