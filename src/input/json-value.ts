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
